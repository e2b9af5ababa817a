/**
 * Standard input, held whole up to a cap, or — past it — handed back as what was read so far plus
 * the rest to stream, so a caller can pass any size through without holding it. Held bytes are one
 * Buffer of exactly their size, never held twice for long: a regular file is read straight into a
 * buffer of its size; a pipe is read synchronously while its descriptor blocks (the usual shell
 * pipe: no stream machinery loaded) into a list of chunks joined once at the end — copying into a
 * buffer that doubles would leave every smaller one behind as garbage, which put reading 39 MB at
 * 107 MB resident. After the first 64 KB every chunk is 64 MB: a buffer that large is mapped on its
 * own, only the pages read into are resident, and freeing it gives them back, where smaller ones
 * come from malloc's heap, which keeps what is freed (a 64 MB JSON document piped in: 260 → 236 MB
 * peak). A non-blocking descriptor (EAGAIN) falls back to the stream.
 * A stdin cg cannot read (a directory) is a one-line UsageError (exit 2).
 */

import { fstatSync, readSync } from 'node:fs';
import { UsageError } from './errors.js';
import { collectGarbage } from './heap/gc.js';

export type StdinRead =
  | { held: true; bytes: Buffer }
  /**
   * Past the cap: `head` was read (in order), `rest` yields what follows it, each chunk valid until
   * the next is asked for.
   */
  | { held: false; head: Buffer[]; rest: AsyncIterable<Buffer> };

const FIRST_CHUNK = 64 * 1024;
const MAX_CHUNK = 64 << 20;
/** Past this size the chunks are collected as soon as they are joined (they are as large as the input). */
const COLLECT_ABOVE = 8 << 20;

/** All of stdin as one Buffer (no cap). */
export async function readStdin(): Promise<Buffer> {
  const r = await readStdinUpTo(Number.POSITIVE_INFINITY);
  if (!r.held) throw new Error('unreachable: stdin past an infinite cap');
  return r.bytes;
}

/** Stdin, held when it has at most `cap` bytes; otherwise what was read and the rest to stream. */
export async function readStdinUpTo(cap: number): Promise<StdinRead> {
  try {
    return await readUpTo(cap);
  } catch (err) {
    throw readError(err);
  }
}

function readError(err: unknown): UsageError {
  if (err instanceof UsageError) return err;
  return new UsageError(`cannot read standard input: ${(err as Error).message}`);
}

async function readUpTo(cap: number): Promise<StdinRead> {
  let size = -1;
  try {
    const st = fstatSync(0);
    if (st.isDirectory()) throw new UsageError('standard input is a directory');
    if (st.isFile()) size = st.size;
  } catch (err) {
    if (err instanceof UsageError) throw err;
    // no stdin to stat: read whatever the stream gives
  }
  if (size > cap) return { held: false, head: [], rest: rest() };
  const chunks = new Chunks(size >= 0 ? size + 1 : FIRST_CHUNK);
  const state = readSyncInto(chunks, cap);
  if (state === 'again') return streamInto(chunks, cap);
  if (state === 'over') return { held: false, head: chunks.taken(), rest: rest() };
  return { held: true, bytes: chunks.joined() };
}

/**
 * Reads with readSync until the end, the cap, or a descriptor that would block. A chunk is filled
 * before the next is made.
 */
function readSyncInto(chunks: Chunks, cap: number): 'eof' | 'over' | 'again' {
  for (;;) {
    const [buf, at] = chunks.room();
    let n: number;
    try {
      n = readSync(0, buf, at, buf.length - at, null);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EOF') return 'eof';
      if (code === 'EAGAIN' || code === 'EWOULDBLOCK') return 'again';
      throw err;
    }
    if (n === 0) return 'eof';
    chunks.grew(n);
    if (chunks.total > cap) return 'over';
  }
}

/** The rest through Node's stream, for a descriptor that would block. */
async function streamInto(chunks: Chunks, cap: number): Promise<StdinRead> {
  const it = process.stdin[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  for (;;) {
    const next = await it.next();
    if (next.done) return { held: true, bytes: chunks.joined() };
    chunks.push(next.value);
    if (chunks.total > cap) {
      const rest = { [Symbol.asyncIterator]: () => it };
      return { held: false, head: chunks.taken(), rest };
    }
  }
}

/**
 * What follows on stdin, read as it comes: synchronously while the descriptor blocks, else by the
 * stream. A chunk read synchronously is valid until the next one is asked for (one buffer is read
 * into again and again: streaming a gigabyte leaves no garbage), so a caller writes it first.
 */
async function* rest(): AsyncGenerator<Buffer> {
  const buf = Buffer.allocUnsafe(1 << 20);
  for (;;) {
    let n: number;
    try {
      n = readSync(0, buf, 0, buf.length, null);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EOF') return;
      if (code !== 'EAGAIN' && code !== 'EWOULDBLOCK') throw readError(err);
      try {
        for await (const chunk of process.stdin) yield chunk as Buffer;
      } catch (e) {
        throw readError(e);
      }
      return;
    }
    if (n === 0) return;
    yield buf.subarray(0, n);
  }
}

/** Bytes read into a list of chunks, joined once into one Buffer of exactly their size. */
class Chunks {
  private list: Buffer[] = [];
  private cur: Buffer;
  private used = 0;
  total = 0;

  constructor(first: number) {
    this.cur = Buffer.allocUnsafe(first);
  }

  /** The chunk to read into and where: a new one (MAX_CHUNK, see above) once the current one is full. */
  room(): [Buffer, number] {
    if (this.used === this.cur.length) {
      this.list.push(this.cur);
      this.cur = Buffer.allocUnsafe(MAX_CHUNK);
      this.used = 0;
    }
    return [this.cur, this.used];
  }

  /** n more bytes were read into room(). */
  grew(n: number): void {
    this.used += n;
    this.total += n;
  }

  /** A chunk the stream gave: copied in, so the stream's chunks die young. */
  push(chunk: Buffer): void {
    for (let at = 0; at < chunk.length; ) {
      const [buf, to] = this.room();
      const n = chunk.copy(buf, to, at);
      this.grew(n);
      at += n;
    }
  }

  /** The chunks read, in order (the list is let go of). */
  taken(): Buffer[] {
    const out = [...this.list, this.cur.subarray(0, this.used)].filter((b) => b.length > 0);
    this.list = [];
    this.cur = Buffer.allocUnsafe(0);
    this.used = 0;
    return out;
  }

  /** Everything read, as one Buffer; the chunks are collected at once when they were large. */
  joined(): Buffer {
    if (this.list.length === 0) return this.cur.subarray(0, this.used);
    const parts = this.taken();
    const out = Buffer.allocUnsafe(this.total);
    let at = 0;
    for (let i = 0; i < parts.length; i++) {
      at += parts[i]!.copy(out, at);
      parts[i] = out.subarray(0, 0);
    }
    if (this.total > COLLECT_ABOVE) collectGarbage();
    return out;
  }
}
