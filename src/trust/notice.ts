/**
 * The one line cg says when it ignores a project's cg files: which files, why, and that `cg trust`
 * is the way to use them. Said once per process (per project and state) whoever notices first (the config loader, the
 * filter registry), and it names everything ignored in that project, so a run never prints more
 * than this one line about it. It is addressed to the user: the agent reading it cannot consent.
 */
import { relative } from 'node:path';
import type { ProjectTrust } from './state.js';

const told = new Set<string>();

/** What was ignored and why, or undefined when nothing was. */
export function ignoredNotice(t: ProjectTrust, cwd: string): string | undefined {
  if (t.status === 'none' || t.status === 'trusted') return undefined;
  const p = t.project;
  const shown = (path: string) => relative(cwd, path) || path;
  const files = [
    ...(p.config ? [shown(p.config)] : []),
    ...(p.filtersDir
      ? [
          `${shown(p.filtersDir)}/${p.filterFiles.length > 0 ? ` (${count(p.filterFiles.length, 'file')})` : ''}`,
        ]
      : []),
  ].join(' and ');
  switch (t.status) {
    case 'untrusted':
      return `ignoring ${files}: this project's cg files are not trusted (review them, then run \`cg trust\`)`;
    case 'changed':
      return `ignoring ${files}: they changed since they were trusted (review them, then run \`cg trust\` again)`;
    case 'unusable':
      return `ignoring ${files}: ${t.reason}`;
  }
}

/** Says the notice once per project per process: to `sink` when given, else as `cg: …` on stderr. */
export function announceIgnored(t: ProjectTrust, cwd: string, sink?: (line: string) => void): void {
  const text = ignoredNotice(t, cwd);
  if (text === undefined || t.status === 'none' || t.status === 'trusted') return;
  const key = `${t.project.root}\0${t.status}`;
  if (told.has(key)) return;
  told.add(key);
  if (sink) sink(text);
  else process.stderr.write(`cg: ${text}\n`);
}

function count(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? '' : 's'}`;
}
