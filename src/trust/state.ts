/**
 * Consent for a project's own cg files (DESIGN §1.8). A cloned repository must not be able to
 * point cg at another model endpoint, make it read a secret variable, write elsewhere, or rewrite
 * what the agent sees, so its `.cg.yaml` and `.cg/filters/*.yaml` are used only after `cg trust`,
 * which records the project's real path and one hash of all those files. Any change — an edit, a
 * file added or removed — changes the hash, and the files are ignored again until trusted again.
 *
 * The files are hashed and parsed from the same bytes, read once (what was checked is what is
 * used), and not read at all while the project has no trust record: an untrusted project is never
 * opened. The hash covers the config as "/.cg.yaml" (no filter file can have that name) and each
 * filter file by its name, so a project with filters only hashes as it did before config joined.
 */
import { createRequire } from 'node:module';
import { basename, relative } from 'node:path';
import { ConfigError } from '../errors.js';
import { readTextFile } from '../fs/bounded-read.js';
import { findProject, type Project } from './project.js';
import { readTrustFile, recordOf, writeTrustFile } from './record.js';

export interface ProjectFileText {
  path: string;
  /** The path relative to the working directory, for messages and filter sources. */
  shown: string;
  text: string;
}

export interface ProjectContents {
  config?: ProjectFileText;
  filters: ProjectFileText[];
}

export type ProjectTrust =
  | { status: 'none' }
  /** untrusted: never trusted; changed: trusted, but the files changed since. */
  | { status: 'untrusted' | 'changed'; project: Project }
  /** A trust record exists, but a file cannot be used (a link, a FIFO, too large …). */
  | { status: 'unusable'; project: Project; reason: string }
  | { status: 'trusted'; project: Project; contents: ProjectContents; trustedAt: string };

/** The project found from cwd and whether its files may be used (with their text when so). */
export function projectTrust(cwd: string, env: NodeJS.ProcessEnv): ProjectTrust {
  const project = findProject(cwd);
  if (!project || isEmpty(project)) return { status: 'none' };
  const record = recordOf(readTrustFile(env, true), project.root);
  if (!record) return { status: 'untrusted', project };
  let contents: ProjectContents;
  try {
    contents = readProjectContents(project, cwd);
  } catch (err) {
    if (err instanceof ConfigError) return { status: 'unusable', project, reason: err.message };
    throw err;
  }
  return hashContents(contents) === record.hash
    ? { status: 'trusted', project, contents, trustedAt: record.trusted_at }
    : { status: 'changed', project };
}

/**
 * Trusts the project's current files: reads them, lets `check` validate them (config schema,
 * filter regexes and inline tests: only files that load cleanly can be trusted), and records the
 * hash of exactly the bytes checked. Throws ConfigError when a file cannot be read or fails.
 */
export async function trustProject<T>(
  cwd: string,
  env: NodeJS.ProcessEnv,
  check: (contents: ProjectContents) => Promise<T>,
  now = new Date(),
): Promise<{ project: Project; contents: ProjectContents; checked: T } | undefined> {
  const project = findProject(cwd);
  if (!project || isEmpty(project)) return undefined;
  const contents = readProjectContents(project, cwd);
  const checked = await check(contents);
  const data = readTrustFile(env);
  data.projects[project.root] = { hash: hashContents(contents), trusted_at: now.toISOString() };
  writeTrustFile(env, data);
  return { project, contents, checked };
}

/** Forgets the project found from cwd; false when it was not trusted. */
export function untrustProject(cwd: string, env: NodeJS.ProcessEnv): { root: string; removed: boolean } {
  const root = findProject(cwd)?.root ?? cwd;
  const data = readTrustFile(env);
  if (!recordOf(data, root)) return { root, removed: false };
  delete data.projects[root];
  writeTrustFile(env, data);
  return { root, removed: true };
}

/** Every project file, read as a bounded regular file that is not a link; ConfigError otherwise. */
export function readProjectContents(project: Project, cwd: string): ProjectContents {
  if (project.problem) throw new ConfigError('', project.problem, project.dir);
  const read = (path: string, what: string): ProjectFileText => {
    const shown = relative(cwd, path) || path;
    return { path, shown, text: readTextFile(path, { shown, what, followLinks: false }) };
  };
  return {
    ...(project.config ? { config: read(project.config, 'config file') } : {}),
    filters: project.filterFiles.map((f) => read(f, 'filter file')),
  };
}

/** sha256 over "/.cg.yaml" and the config's bytes, then each filter file's name and bytes. */
export function hashContents(contents: ProjectContents): string {
  // node:crypto loads on first use only: most runs never check trust.
  const { createHash } = createRequire(import.meta.url)('node:crypto') as typeof import('node:crypto');
  const h = createHash('sha256');
  const add = (name: string, text: string) => {
    h.update(`${name}\0`);
    h.update(text);
    h.update('\0');
  };
  if (contents.config) add('/.cg.yaml', contents.config.text);
  for (const f of contents.filters) add(basename(f.path), f.text);
  return `sha256:${h.digest('hex')}`;
}

function isEmpty(p: Project): boolean {
  return p.config === undefined && p.filterFiles.length === 0 && p.problem === undefined;
}
