/**
 * Finds the program `cg run` is asked to start, the way execvp(3) and a shell do, so a command that
 * cannot start is answered like a shell answers it: 127 when there is no such command (an empty
 * name included), 126 when it exists but cannot be executed (a directory, no execute permission).
 * Deciding this before spawning keeps the message ours and exact instead of Node's.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

export type Program = { ok: true; path: string } | { ok: false; code: 126 | 127; message: string };

/** POSIX's default search path when PATH is unset (what execvp uses). */
const DEFAULT_PATH = '/bin:/usr/bin';

type Probe = 'exec' | 'directory' | 'denied' | 'missing';

function probe(path: string): Probe {
  try {
    if (statSync(path).isDirectory()) return 'directory';
    accessSync(path, constants.X_OK);
    return 'exec';
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === 'EACCES' || code === 'EPERM' ? 'denied' : 'missing';
  }
}

export function findProgram(name: string, env: NodeJS.ProcessEnv = process.env): Program {
  const shown = name === '' ? "''" : name;
  if (name === '') return { ok: false, code: 127, message: `${shown}: command not found` };
  if (name.includes('/')) {
    switch (probe(name)) {
      case 'exec':
        return { ok: true, path: name };
      case 'directory':
        return { ok: false, code: 126, message: `${shown}: Is a directory` };
      case 'denied':
        return { ok: false, code: 126, message: `${shown}: Permission denied` };
      case 'missing':
        return { ok: false, code: 127, message: `${shown}: No such file or directory` };
    }
  }
  let denied = false;
  for (const dir of (env.PATH ?? DEFAULT_PATH).split(delimiter)) {
    // An empty entry is the current directory, as for execvp.
    const path = dir === '' ? `./${name}` : join(dir, name);
    const found = probe(path);
    if (found === 'exec') return { ok: true, path };
    // execvp goes on searching past an entry it may not execute, and reports EACCES at the end.
    if (found === 'denied' || found === 'directory') denied = true;
  }
  return denied
    ? { ok: false, code: 126, message: `${shown}: Permission denied` }
    : { ok: false, code: 127, message: `${shown}: command not found` };
}
