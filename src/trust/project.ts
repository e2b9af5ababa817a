/**
 * Where the project's own cg files are, found the way git finds its repository: from the working
 * directory up, the first directory holding `.cg.yaml` or `.cg/filters/` is the project; the walk
 * never goes above the repository root (a directory with `.git`), and outside a repository it goes
 * up to the filesystem root. Finding reads no file: only names are looked at, with lstat, so an
 * untrusted project costs a few system calls and nothing it planted is opened.
 */
import { lstatSync, readdirSync, realpathSync, type Stats } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

export const PROJECT_CONFIG = '.cg.yaml';
export const PROJECT_FILTERS_DIR = join('.cg', 'filters');
/** More filter files than this in one project is not a project anyone reviewed. */
export const MAX_PROJECT_FILTER_FILES = 100;

export interface Project {
  /** The project directory as a real path: the key of its trust record. */
  root: string;
  /** The project directory as reached from the working directory (for messages). */
  dir: string;
  /** `.cg.yaml`, when there is one (of any file type: reading decides whether it is usable). */
  config?: string;
  /** `.cg/filters`, when it exists. */
  filtersDir?: string;
  /** The *.yaml / *.yml names in `.cg/filters`, sorted, as paths. */
  filterFiles: string[];
  /** Why the project's files cannot be used whatever the trust record says, if they cannot. */
  problem?: string;
}

export function findProject(cwd: string): Project | undefined {
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    const config = entry(join(dir, PROJECT_CONFIG));
    const filters = entry(join(dir, PROJECT_FILTERS_DIR));
    if (config || filters) return describeProject(dir, config !== undefined, filters !== undefined);
    if (entry(join(dir, '.git')) || dirname(dir) === dir) return undefined;
  }
}

function describeProject(dir: string, hasConfig: boolean, hasFilters: boolean): Project {
  const project: Project = { root: realPath(dir), dir, filterFiles: [] };
  if (hasConfig) project.config = join(dir, PROJECT_CONFIG);
  if (!hasFilters) return project;
  const filtersDir = join(dir, PROJECT_FILTERS_DIR);
  project.filtersDir = filtersDir;
  // `.cg` or `.cg/filters` as a link could point anywhere on the machine: refused like a linked file.
  for (const d of [join(dir, '.cg'), filtersDir]) {
    const st = entry(d);
    if (!st?.isDirectory()) {
      project.problem = `${d.slice(dir.length + 1)} is ${st?.isSymbolicLink() ? 'a symbolic link' : 'not a directory'}`;
      return project;
    }
  }
  project.filterFiles = yamlFilesIn(filtersDir);
  if (project.filterFiles.length > MAX_PROJECT_FILTER_FILES) {
    project.problem = `${PROJECT_FILTERS_DIR} holds more than ${MAX_PROJECT_FILTER_FILES} filter files`;
  }
  return project;
}

/** The *.yaml / *.yml files of a directory, sorted by name; none when it cannot be listed. */
export function yamlFilesIn(dir: string): string[] {
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

/** What is at a path, without following a link there; undefined when nothing (or unreadable). */
function entry(path: string): Stats | undefined {
  try {
    return lstatSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

function realPath(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return dir;
  }
}
