/**
 * The project filter files a load left out because they are not trusted (never trusted, edited
 * since, or unusable): `cg filters list` and `verify` name them, so that neither reports on the
 * filters in use as if they were all there were. Trust decides whether they are used; this only
 * says that they exist and why they are not.
 */
import { relative } from 'node:path';
import type { ProjectTrust } from '../trust/state.js';

export interface SkippedFiles {
  /** The files, relative to the working directory. */
  files: string[];
  /** untrusted, changed or unusable (ProjectTrust's status). */
  status: 'untrusted' | 'changed' | 'unusable';
  reason: string;
}

export function skippedProjectFilters(t: ProjectTrust, cwd: string): SkippedFiles | undefined {
  if (t.status === 'none' || t.status === 'trusted' || t.project.filterFiles.length === 0) return undefined;
  const reason =
    t.status === 'unusable'
      ? t.reason
      : t.status === 'changed'
        ? 'changed since they were trusted'
        : 'not trusted';
  return {
    files: t.project.filterFiles.map((f) => relative(cwd, f) || f),
    status: t.status,
    reason,
  };
}
