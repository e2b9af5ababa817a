/**
 * Consent for project filters. A cloned repository must not be able to rewrite what the agent sees
 * by shipping ./.cg/filters/*.yaml, so those files are used only after `cg filters trust`, which
 * records the project's real path and a hash of its filter files (names and bytes) in
 * $XDG_CONFIG_HOME/cg/trusted.json. Any change to the files — an edit, a new or removed file —
 * changes the hash, and the filters are ignored again until trusted again.
 */

import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../errors.js';

export const PROJECT_FILTERS_DIR = join('.cg', 'filters');

export interface TrustRecord {
  hash: string;
  trusted_at: string;
}

interface TrustFile {
  version: 1;
  projects: Record<string, TrustRecord>;
}

export type TrustStatus = 'none' | 'trusted' | 'untrusted' | 'changed';

export interface ProjectFilters {
  /** The project (cwd) as a real path: the key of its trust record. */
  project: string;
  dir: string;
  /** Filter files, sorted. */
  files: string[];
  hash: string;
  /** none: no filter files; untrusted: never trusted; changed: trusted, but the files changed since. */
  status: TrustStatus;
}

export function configHome(env: NodeJS.ProcessEnv): string {
  return env.XDG_CONFIG_HOME || join(homedir(), '.config');
}

export function trustFilePath(env: NodeJS.ProcessEnv): string {
  return join(configHome(env), 'cg', 'trusted.json');
}

/** The *.yaml / *.yml files of a directory, sorted by name; none when it does not exist. */
export function filterFilesIn(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .filter((n) => /\.ya?ml$/.test(n))
    .sort()
    .map((n) => join(dir, n));
}

/** sha256 over each file's name and bytes, in name order. */
export function hashFiles(files: readonly string[]): string {
  // node:crypto loads on first use only: most runs never check trust.
  const { createHash } = createRequire(import.meta.url)('node:crypto') as typeof import('node:crypto');
  const h = createHash('sha256');
  for (const f of files) {
    const name = f.slice(f.lastIndexOf('/') + 1);
    h.update(`${name}\0`);
    h.update(readFileSync(f));
    h.update('\0');
  }
  return `sha256:${h.digest('hex')}`;
}

/** The trust records; a file that is not one trusts nothing when lenient, else is an error. */
function readTrust(env: NodeJS.ProcessEnv, lenient = false): TrustFile {
  const path = trustFilePath(env);
  if (!existsSync(path)) return { version: 1, projects: {} };
  try {
    const data = JSON.parse(readFileSync(path, 'utf8')) as Partial<TrustFile>;
    if (data && typeof data === 'object' && data.projects && typeof data.projects === 'object') {
      return { version: 1, projects: data.projects };
    }
  } catch {
    // fall through: an unreadable record trusts nothing
  }
  if (lenient) return { version: 1, projects: {} };
  throw new ConfigError('', 'not a cg trust file (delete it to start over)', path);
}

function writeTrust(env: NodeJS.ProcessEnv, data: TrustFile): void {
  const path = trustFilePath(env);
  mkdirSync(join(configHome(env), 'cg'), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(data, null, 2)}\n`);
  renameSync(tmp, path);
}

function realProject(cwd: string): string {
  try {
    return realpathSync(cwd);
  } catch {
    return cwd;
  }
}

export function projectFilters(cwd: string, env: NodeJS.ProcessEnv): ProjectFilters {
  const project = realProject(cwd);
  const dir = join(cwd, PROJECT_FILTERS_DIR);
  const files = filterFilesIn(dir);
  if (files.length === 0) return { project, dir, files, hash: '', status: 'none' };
  const hash = hashFiles(files);
  const record = readTrust(env, true).projects[project];
  const status: TrustStatus = !record ? 'untrusted' : record.hash === hash ? 'trusted' : 'changed';
  return { project, dir, files, hash, status };
}

/** Records the current files as trusted. The caller validates them first. */
export function trustProject(p: ProjectFilters, env: NodeJS.ProcessEnv, now = new Date()): void {
  const data = readTrust(env);
  data.projects[p.project] = { hash: p.hash, trusted_at: now.toISOString() };
  writeTrust(env, data);
}

/** Forgets the project; false when it was not trusted. */
export function untrustProject(cwd: string, env: NodeJS.ProcessEnv): boolean {
  const data = readTrust(env);
  const project = realProject(cwd);
  if (!Object.hasOwn(data.projects, project)) return false;
  delete data.projects[project];
  writeTrust(env, data);
  return true;
}
