/**
 * Runs the built CLI in a pseudo-terminal, as a person at a terminal runs it: util-linux `script`
 * gives it a pty for stdin, stdout and stderr (so the two outputs arrive merged, with CRLF line
 * ends, here turned back into LF). For commands that need a person there (`cg trust`); a machine
 * without util-linux `script` has HAS_PTY false, and those tests are skipped by name.
 */
import { spawnSync } from 'node:child_process';
import { ROOT } from '../helpers.js';
import { BIN } from './run-cg.js';

export const HAS_PTY =
  process.platform === 'linux' &&
  (spawnSync('script', ['--version'], { encoding: 'utf8' }).stdout ?? '').includes('util-linux');

const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

export interface PtyRun {
  code: number;
  /** What the terminal showed: stdout and stderr together. */
  out: string;
}

/** `cg ARGS` in a terminal, with only PATH, HOME and `env` in its environment. */
export function cgInTerminal(args: string[], o: { cwd?: string; env?: Record<string, string> } = {}): PtyRun {
  const command = [process.execPath, BIN, ...args].map(quote).join(' ');
  const r = spawnSync('script', ['-qec', command, '/dev/null'], {
    cwd: o.cwd ?? ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', SHELL: '/bin/sh', ...o.env },
    input: '',
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: r.status ?? -1, out: (r.stdout ?? '').replaceAll('\r\n', '\n') };
}
