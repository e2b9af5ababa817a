/**
 * Whether a descriptor is a terminal (a person is watching), asked without building process.stderr
 * or loading node:tty up front: both pull in Node's socket and stream machinery, a few milliseconds
 * of a start-up that has nothing to say on a terminal. Only a character device can be a terminal;
 * for one (a terminal, or /dev/null) tty.isatty decides.
 */
import { fstatSync } from 'node:fs';
import { createRequire } from 'node:module';

export function isTerminal(fd: number): boolean {
  try {
    if (!fstatSync(fd).isCharacterDevice()) return false;
  } catch {
    return false;
  }
  const { isatty } = createRequire(import.meta.url)('node:tty') as typeof import('node:tty');
  return isatty(fd);
}
