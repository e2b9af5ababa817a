/**
 * Whether a descriptor is a terminal (a person is watching), asked without building process.stderr
 * or loading node:tty up front: both pull in Node's socket and stream machinery, a few milliseconds
 * of a start-up that has nothing to say on a terminal. Only a character device can be a terminal;
 * on Linux one of the memory devices (major 1: /dev/null, /dev/zero, /dev/urandom …) never is, and
 * /dev/null is where scripts and benchmarks send stderr, so it is answered without node:tty too.
 * For any other character device tty.isatty decides.
 */
import { fstatSync } from 'node:fs';
import { createRequire } from 'node:module';

/** Linux's major number of the memory devices (/dev/null, /dev/zero, /dev/full, /dev/random …). */
const LINUX_MEM_MAJOR = 1;

/** The major number of a Linux device number (glibc's gnu_dev_major). */
export function linuxMajor(rdev: number): number {
  return ((rdev >>> 8) & 0xfff) | (Math.floor(rdev / 2 ** 32) & ~0xfff);
}

export function isTerminal(fd: number): boolean {
  try {
    const stat = fstatSync(fd);
    if (!stat.isCharacterDevice()) return false;
    if (process.platform === 'linux' && linuxMajor(stat.rdev) === LINUX_MEM_MAJOR) return false;
  } catch {
    return false;
  }
  const { isatty } = createRequire(import.meta.url)('node:tty') as typeof import('node:tty');
  return isatty(fd);
}
