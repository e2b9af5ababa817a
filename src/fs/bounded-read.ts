/**
 * The one way cg reads a config, filter or trust file: a regular file, bounded in size, as text.
 * A repository can plant anything where cg looks (`.cg/filters/x.yaml -> /dev/zero`, a FIFO, a
 * symlink to /proc/self/environ), so the file is opened O_NONBLOCK (a FIFO cannot hang the open),
 * checked with fstat on the open descriptor (what is read is what was checked), and read only up
 * to its cap. Project files are opened O_NOFOLLOW as well: like git with .gitattributes, cg never
 * follows a symlink the working tree planted. Errors name the file and what is wrong with it,
 * never its contents.
 */
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { ConfigError } from '../errors.js';

/** The cap on one config or filter file. */
export const MAX_CONFIG_BYTES = 1 << 20;

export interface ReadOptions {
  /** The path as the user knows it, for errors. */
  shown: string;
  /** What the file is, for errors: "config file", "filter file". */
  what: string;
  /** false for files of the working tree: a symlink there is refused, never followed. */
  followLinks: boolean;
  maxBytes?: number;
}

/** The file's bytes as UTF-8 text; a ConfigError naming the file otherwise. */
export function readTextFile(path: string, opts: ReadOptions): string {
  const bytes = readRegularFile(path, opts);
  // A NUL never occurs in YAML or JSON: this is /proc/self/environ or a binary, not a text file.
  if (bytes.includes(0)) throw fail(opts, 'contains NUL bytes: not a text file');
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw fail(opts, 'is not UTF-8 text');
  }
}

/** The bytes of a regular file of at most maxBytes. */
export function readRegularFile(path: string, opts: ReadOptions): Buffer {
  const max = opts.maxBytes ?? MAX_CONFIG_BYTES;
  const flags = constants.O_RDONLY | constants.O_NONBLOCK | (opts.followLinks ? 0 : constants.O_NOFOLLOW);
  let fd: number;
  try {
    fd = openSync(path, flags);
  } catch (err) {
    throw fail(opts, openProblem(err as NodeJS.ErrnoException));
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw fail(opts, `is not a regular file (${kindOf(st)})`);
    if (st.size > max) throw fail(opts, `is larger than ${sizeOf(max)} (${sizeOf(st.size)})`);
    // Read to EOF, not to st.size: /proc files report 0, and a file may grow while it is read.
    let buf = Buffer.allocUnsafe(Math.min(max + 1, Math.max(st.size + 1, 64 * 1024)));
    let got = 0;
    for (;;) {
      if (got === buf.length) {
        if (buf.length > max) break;
        const bigger = Buffer.allocUnsafe(Math.min(max + 1, buf.length * 2));
        buf.copy(bigger, 0, 0, got);
        buf = bigger;
      }
      const n = readSync(fd, buf, got, buf.length - got, null);
      if (n === 0) break;
      got += n;
    }
    if (got > max) throw fail(opts, `is larger than ${sizeOf(max)}`);
    return buf.subarray(0, got);
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    throw fail(opts, `cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  } finally {
    closeSync(fd);
  }
}

function fail(opts: ReadOptions, problem: string): ConfigError {
  return new ConfigError('', `${opts.what} ${problem}`, opts.shown);
}

function openProblem(err: NodeJS.ErrnoException): string {
  switch (err.code) {
    case 'ENOENT':
      return 'not found';
    case 'ELOOP':
      return 'is a symbolic link (files in the project must be regular files; cg does not follow links there)';
    case 'EACCES':
    case 'EPERM':
      return 'cannot be read (permission denied)';
    case 'ENXIO':
      return 'is not a regular file (a socket or device)';
    default:
      return `cannot be read (${err.code ?? 'error'})`;
  }
}

function kindOf(st: Stats): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a FIFO';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  if (st.isSocket()) return 'a socket';
  return 'not a file';
}

function sizeOf(n: number): string {
  return n >= 1 << 20 && n % (1 << 20) === 0 ? `${n / (1 << 20)} MiB` : `${n} bytes`;
}
