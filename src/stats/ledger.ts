/**
 * The append-only ledger files: safe appends from many processes at once, and rotation.
 *
 * Appending. Each batch of whole lines is one write(2) on a descriptor opened with O_APPEND: the
 * kernel moves to the end and writes under the inode lock, so concurrent batches never interleave
 * and never overwrite each other on a local filesystem (regular files are not pipes: PIPE_BUF does
 * not apply, but to stay safe on filesystems with weaker guarantees a batch is split, on line
 * boundaries, into writes of at most MAX_WRITE bytes, and lines themselves are capped in line.ts).
 * Node's promise-based appendFile writes in 512 KiB pieces and retries short writes; that is why this
 * module calls fs.write once on the whole buffer instead. A short write (disk full) leaves the rest
 * of the batch unwritten rather than retried at a moved offset, and the reader skips a torn line;
 * the next append starts on a fresh line, so a torn line never takes the next record with it.
 *
 * Rotation. After an append, when the live file is over the limit, it is renamed to
 * ledger.<stamp>.jsonl (a name no other process can pick, so two rotators never overwrite each
 * other: the loser renames a fresh small file, or finds none) and the oldest rotated files beyond
 * `keep` are removed. A writer that opened the live file just before the rename writes into the
 * rotated file, which readers still cover: no line is lost. Rotation drops history only by design,
 * when more than `keep` files have filled.
 */
import { closeSync, fstatSync, openSync, readSync, writeSync } from 'node:fs';
import { open, readdir, rename, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { makeDirsSync } from '../make-dirs.js';
import { LEDGER_FILE_RE, type LedgerLocation, LIVE_NAME } from './paths.js';

/** Far below any filesystem's atomic-append limit that matters here, and above any real batch. */
export const MAX_WRITE = 64 * 1024;

let rotateCounter = 0;

/**
 * Appends whole lines (without newlines) as one write per ≤ MAX_WRITE chunk. The lines may come
 * one at a time (a generator): only one chunk of them is held at once.
 */
export async function appendLines(loc: LedgerLocation, lines: Iterable<string>): Promise<void> {
  const batches = chunks(lines)[Symbol.iterator]();
  const first = batches.next();
  if (first.done) return;
  let size: number;
  try {
    size = appendChunks(loc.live, first.value, batches);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    makeDirsSync(loc.dir);
    size = appendChunks(loc.live, first.value, batches);
  }
  if (size > loc.rotateBytes) await rotate(loc);
}

/**
 * Synchronous: an append is a handful of system calls at the end of a run, cheaper than starting
 * libuv's thread pool for them (which a run that stashed nothing would start for this alone).
 */
function appendChunks(path: string, first: string, rest: Iterator<string>): number {
  const fd = openSync(path, 'a+', 0o600);
  try {
    writeOnce(fd, Buffer.from(endsOnFreshLine(fd) ? first : `\n${first}`, 'utf8'));
    for (let chunk = rest.next(); !chunk.done; chunk = rest.next())
      writeOnce(fd, Buffer.from(chunk.value, 'utf8'));
    return fstatSync(fd).size;
  } finally {
    closeSync(fd);
  }
}

/**
 * Whether the file is empty or ends in a newline. A crash or a full disk can leave a last line
 * without its newline; appending straight after it would glue our first line to it, and a reader
 * could then lose both. So an append after such a line starts with a newline of its own. The check
 * can see another process's write half copied (the size grows as it copies); that costs an empty
 * line, which readers skip and counts ignore.
 */
function endsOnFreshLine(fd: number): boolean {
  const { size } = fstatSync(fd);
  if (size === 0) return true;
  const last = Buffer.alloc(1);
  const bytesRead = readSync(fd, last, 0, 1, size - 1);
  return bytesRead === 1 && last[0] === 0x0a;
}

/** Batches of whole lines, each under MAX_WRITE bytes (a longer single line goes alone). */
function* chunks(lines: Iterable<string>): Generator<string> {
  let current = '';
  // Counted as lines are added: measuring the growing chunk each time would cost its square.
  let bytes = 0;
  for (const line of lines) {
    const next = `${line}\n`;
    const size = Buffer.byteLength(next);
    if (current && bytes + size > MAX_WRITE) {
      yield current;
      current = '';
      bytes = 0;
    }
    current += next;
    bytes += size;
  }
  if (current) yield current;
}

/** Exactly one write(2): no retry of a short write at a later, possibly foreign, offset. */
function writeOnce(fd: number, buf: Buffer): void {
  writeSync(fd, buf, 0, buf.length, null);
}

/** Rotated ledgers, oldest first (their stamps sort by time), then the live one. */
export async function ledgerFiles(loc: LedgerLocation): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(loc.dir);
  } catch {
    return [];
  }
  const rotated = names.filter((n) => n !== LIVE_NAME && LEDGER_FILE_RE.test(n)).sort();
  const files = rotated.map((n) => join(loc.dir, n));
  if (names.includes(LIVE_NAME)) files.push(loc.live);
  return files;
}

export async function rotate(loc: LedgerLocation, now = Date.now()): Promise<void> {
  // Zero-padded base-36 time first so names sort chronologically; pid and a counter make it unique.
  const stamp = `${now.toString(36).padStart(9, '0')}-${process.pid.toString(36)}-${(rotateCounter++).toString(36)}`;
  try {
    await rename(loc.live, join(loc.dir, `ledger.${stamp}.jsonl`));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return; // another process rotated first
    throw err;
  }
  const rotated = (await ledgerFiles(loc)).filter((f) => f !== loc.live);
  for (const old of rotated.slice(0, Math.max(0, rotated.length - loc.keep))) {
    await unlink(old).catch(() => undefined);
  }
}

export interface RemovedFiles {
  files: number;
  bytes: number;
  lines: number;
}

/** Deletes every ledger file; counts what it removed. */
export async function removeLedgers(loc: LedgerLocation): Promise<RemovedFiles> {
  const removed: RemovedFiles = { files: 0, bytes: 0, lines: 0 };
  for (const file of await ledgerFiles(loc)) {
    try {
      const { size } = await stat(file);
      const lines = await countLines(file);
      await unlink(file);
      removed.files++;
      removed.bytes += size;
      removed.lines += lines;
    } catch {
      // gone already (rotated and pruned by another process): nothing to remove
    }
  }
  return removed;
}

async function countLines(file: string): Promise<number> {
  const fh = await open(file, 'r');
  try {
    const buf = Buffer.allocUnsafe(1 << 20);
    let n = 0;
    let previous = 10;
    for (;;) {
      const { bytesRead } = await fh.read(buf, 0, buf.length, null);
      if (bytesRead === 0) return n;
      // Empty lines (a newline an append added after a line it took for torn) are not events.
      let at = buf.indexOf(10, 0);
      while (at !== -1 && at < bytesRead) {
        if (at === 0 ? previous !== 10 : buf[at - 1] !== 10) n++;
        at = buf.indexOf(10, at + 1);
      }
      previous = buf[bytesRead - 1]!;
    }
  } finally {
    await fh.close();
  }
}
