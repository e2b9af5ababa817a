/**
 * The user's trust records: $XDG_CONFIG_HOME/cg/trusted.json (~/.config/cg/trusted.json), one
 * record per project real path holding the hash of the project's cg files when they were trusted.
 * The file is the user's own, so it may be a symlink (dotfiles), but it is still read as a bounded
 * regular file; it is written atomically (temp file + rename), private to the user.
 */
import { existsSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../errors.js';
import { readTextFile } from '../fs/bounded-read.js';
import { objectAt } from '../json/payload.js';
import { makeDirsSync } from '../make-dirs.js';

export interface TrustRecord {
  hash: string;
  trusted_at: string;
}

export interface TrustFile {
  version: 1;
  projects: Record<string, TrustRecord>;
}

const MAX_TRUST_FILE_BYTES = 4 << 20;

/** $XDG_CONFIG_HOME, else ~/.config. */
export function configHome(env: NodeJS.ProcessEnv): string {
  return env.XDG_CONFIG_HOME || join(homedir(), '.config');
}

export function trustFilePath(env: NodeJS.ProcessEnv): string {
  return join(configHome(env), 'cg', 'trusted.json');
}

/**
 * The trust records. A file that is not one trusts nothing when lenient (every run), and is an
 * error otherwise (when about to rewrite it: a file cg cannot read is not overwritten blindly).
 */
export function readTrustFile(env: NodeJS.ProcessEnv, lenient = false): TrustFile {
  const path = trustFilePath(env);
  if (!existsSync(path)) return { version: 1, projects: {} };
  let problem: ConfigError | undefined;
  try {
    const text = readTextFile(path, {
      shown: path,
      what: 'trust file',
      followLinks: true,
      maxBytes: MAX_TRUST_FILE_BYTES,
    });
    const projects = objectAt(JSON.parse(text), 'projects');
    if (projects) return { version: 1, projects: projects as TrustFile['projects'] };
  } catch (err) {
    if (err instanceof ConfigError) problem = err;
  }
  if (lenient) return { version: 1, projects: {} };
  throw problem ?? new ConfigError('', 'not a cg trust file (delete it to start over)', path);
}

export function writeTrustFile(env: NodeJS.ProcessEnv, data: TrustFile): void {
  const path = trustFilePath(env);
  makeDirsSync(join(configHome(env), 'cg'));
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(data, null, 2)}\n`, { mode: 0o600 });
  renameSync(tmp, path);
}

/** The record of a project, if it was ever trusted (Object.hasOwn: a project named "__proto__" is not). */
export function recordOf(data: TrustFile, root: string): TrustRecord | undefined {
  return Object.hasOwn(data.projects, root) ? data.projects[root] : undefined;
}
