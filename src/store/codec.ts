/**
 * How an original is packed for storage, by every backend: gzip when it pays (node:zlib, loaded on
 * first use), raw otherwise. The two forms need no header to tell apart: an original is valid UTF-8,
 * and 0x8b is a continuation byte that can never follow the ASCII byte 0x1f, so no original starts
 * with gzip's magic 1f 8b. A stored form is read back only through verify.ts, which bounds what it
 * inflates; a damaged stream throws here, and callers read that as "corrupt".
 */

import { utf8Slices } from '../utf8-slices.js';

/**
 * gzip level 1, chosen by measurement on a generated 100 MB build log (Node 20, 2 vCPUs, async gzip
 * with 1 MiB chunks, 4 runs each): level 1 took 308–528 ms (best ≈ 325 MB/s) and kept 7.2 % of the
 * bytes; level 6 took 1103–1138 ms (≈ 91 MB/s) and kept 5.7 %. Level 6 alone would blow the CLI's
 * ≥ 100 MB/s end-to-end budget; level 1 leaves room for hashing, writing and the rest of the
 * pipeline, and 1.5 % more disk is nothing next to that.
 */
const GZIP_LEVEL = 1;
/** Below this, gzip's header and dictionary warm-up cost more than they save. */
const COMPRESS_MIN_BYTES = 1024;
/**
 * zlib's 16 KiB default chunk means thousands of thread-pool round trips on a big entry; on 100 MB,
 * 1 MiB chunks measured 10–20 % faster to compress and about a third faster to decompress.
 */
const BIG_CHUNK = 1 << 20;
/**
 * Entries above this are gzipped as several members at once on the thread pool; concatenated gzip
 * members are one valid gzip stream, and gunzip reads them back as one. On a 108 MB log here, four
 * parallel members took 326 ms against 563 ms for one stream, for 0.004 % more bytes.
 */
const PARALLEL_MIN_BYTES = 8 << 20;
const PARALLEL_PARTS = 4;

type Zlib = typeof import('node:zlib');
let zlib: Promise<Zlib> | undefined;
const loadZlib = () => (zlib ??= import('node:zlib'));

async function gzipAsync(data: Buffer, opts: import('node:zlib').ZlibOptions): Promise<Buffer> {
  const { gzip } = await loadZlib();
  return new Promise((resolve, reject) => gzip(data, opts, (err, out) => (err ? reject(err) : resolve(out))));
}

async function gunzipAsync(data: Buffer, opts: import('node:zlib').ZlibOptions = {}): Promise<Buffer> {
  const { gunzip } = await loadZlib();
  return new Promise((resolve, reject) =>
    gunzip(data, opts, (err, out) => (err ? reject(err) : resolve(out))),
  );
}

async function gzipParallel(bytes: Buffer): Promise<Buffer> {
  const step = Math.ceil(bytes.length / PARALLEL_PARTS);
  const parts = await Promise.all(
    Array.from({ length: PARALLEL_PARTS }, (_, i) =>
      gzipAsync(bytes.subarray(i * step, Math.min(bytes.length, (i + 1) * step)), {
        level: GZIP_LEVEL,
        chunkSize: BIG_CHUNK,
      }),
    ),
  );
  return Buffer.concat(parts);
}

export function isGzip(raw: Buffer): boolean {
  return raw.length >= 2 && raw[0] === 0x1f && raw[1] === 0x8b;
}

/**
 * Originals up to this size are gzipped in place: an asynchronous gzip costs a stream, a thread-pool
 * hop and its callbacks per call, which for small inputs is most of the work — measured here on
 * 17,000 tool results of ~1.7 KB (a proxy's first sight), 1,650 ms asynchronous against 190 ms in
 * place. 256 KiB at level 1 is about a millisecond of work, so a long-lived process still answers.
 */
const SYNC_ENCODE_MAX = 256 << 10;

/** The stored form of an original: gzip when compression is on and it is smaller, else the bytes. */
export async function encode(bytes: Buffer, compress: boolean): Promise<Buffer> {
  if (!compress || bytes.length < COMPRESS_MIN_BYTES) return bytes;
  const packed =
    bytes.length <= SYNC_ENCODE_MAX
      ? (await loadZlib()).gzipSync(bytes, { level: GZIP_LEVEL })
      : bytes.length > PARALLEL_MIN_BYTES
        ? await gzipParallel(bytes)
        : await gzipAsync(bytes, { level: GZIP_LEVEL });
  return packed.length < bytes.length ? packed : bytes;
}

/**
 * zlib's output chunk for a 1 Mi-unit member: one chunk holds what a slice compresses to, in fewer
 * thread-pool round trips than the default 16 KiB (which cost ~15 % more CPU on a 100 MB log).
 */
const MEMBER_CHUNK = 256 << 10;
/** Members of a large text's gzip compressed at once (each a slice's bytes while in flight). */
const TEXT_MEMBERS_IN_FLIGHT = 4;

/**
 * The stored form of a large text's UTF-8 (compression on), built a slice at a time: each slice's
 * bytes (a 1 Mi-unit slice, src/utf8-slices.ts) are gzipped as a member of their own, a few at once
 * on the thread pool, so at most a few slices' bytes exist beside the text, never its whole
 * encoding. Undefined when gzip does not pay
 * (then the caller stores the bytes as they are).
 */
export async function encodeText(text: string): Promise<Buffer | undefined> {
  const slices = [...utf8Slices(text)];
  const members: Buffer[] = new Array(slices.length);
  let rawBytes = 0;
  let next = 0;
  const worker = async () => {
    // One buffer a worker, written again for each of its slices once zlib is done with the last:
    // a buffer per slice was the whole text's UTF-8 again as garbage (a 16 MB original's stash
    // peaked 9 MB higher), held until the heap next filled.
    let scratch: Buffer | undefined;
    for (let i = next++; i < slices.length; i = next++) {
      const slice = slices[i]!;
      const need = Buffer.byteLength(slice, 'utf8');
      if (!scratch || scratch.length < need) scratch = Buffer.allocUnsafeSlow(need);
      const bytes = scratch.subarray(0, scratch.write(slice, 'utf8'));
      rawBytes += bytes.length;
      const out = await gzipAsync(bytes, { level: GZIP_LEVEL, chunkSize: MEMBER_CHUNK });
      // A member is a view of zlib's output chunk; copied to its size, it holds only its bytes.
      members[i] = out.byteLength < out.buffer.byteLength ? Buffer.from(out) : out;
    }
  };
  await Promise.all(Array.from({ length: Math.min(TEXT_MEMBERS_IN_FLIGHT, slices.length) }, worker));
  const packed = Buffer.concat(members);
  return packed.length < rawBytes ? packed : undefined;
}

/**
 * Stored forms up to this size are gunzipped in place (well under a millisecond's work): the thread
 * pool's round trip would cost more than the work; larger ones go to the pool, so a long-lived
 * process keeps answering meanwhile.
 */
const SYNC_DECODE_MAX = 256 << 10;

/**
 * The original from a gzip stored form if it inflates to at most `max` bytes, else undefined: zlib
 * stops at the limit (maxOutputLength), so a small value that inflates to gigabytes costs `max`
 * bytes, never its whole output. Throws on a damaged stream.
 */
export async function gunzipUpTo(raw: Buffer, max: number): Promise<Buffer | undefined> {
  const opts = {
    maxOutputLength: Math.max(1, max),
    ...(raw.length > BIG_CHUNK ? { chunkSize: BIG_CHUNK } : {}),
  };
  try {
    return raw.length <= SYNC_DECODE_MAX
      ? (await loadZlib()).gunzipSync(raw, opts)
      : await gunzipAsync(raw, opts);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') return undefined;
    throw err;
  }
}

/**
 * Inflates a gzip stored form a chunk at a time, handing each chunk to `take` and holding none of
 * them: `take` returns false to stop there (zlib is then closed, nothing more is inflated). Resolves
 * true when the stream was read to its end; rejects on a damaged stream.
 */
export async function inflateEach(raw: Buffer, take: (chunk: Buffer) => boolean): Promise<boolean> {
  const { createGunzip } = await loadZlib();
  return new Promise((resolve, reject) => {
    const z = createGunzip({ chunkSize: BIG_CHUNK });
    let settled = false;
    const settle = (complete: boolean | Error) => {
      if (settled) return;
      settled = true;
      if (complete instanceof Error) reject(complete);
      else resolve(complete);
    };
    z.on('data', (chunk: Buffer) => {
      if (settled || take(chunk)) return;
      settle(false);
      z.destroy();
    });
    z.on('end', () => settle(true));
    z.on('error', (err) => settle(err));
    z.end(raw);
  });
}
