/**
 * Request bodies the proxy reads: gathered whole (up to a cap), and decoded when the client
 * compressed them (gzip, deflate, br, and zstd where this Node has it). A body in an encoding this
 * Node cannot decode is forwarded as it came, uncompacted. A rewritten or decoded body is sent on
 * plain, with its own content-length (headers.ts drops the old ones).
 */
import type { IncomingMessage } from 'node:http';
import { Accumulator } from '../io.js';

/** Bodies above this are not buffered for compaction: the proxy answers 413. */
export const MAX_BODY_BYTES = 512 * 1024 * 1024;

export class BodyTooLarge extends Error {}

/**
 * The whole request body; rejects with BodyTooLarge past `max` bytes. Each chunk is copied into one
 * buffer as it arrives — sized by content-length when the client sent one — so the chunks die young
 * instead of all living until the end for a concat (a second copy of a 24 MB body at every turn).
 */
export function readBody(req: IncomingMessage, max = MAX_BODY_BYTES): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    const initial = Number.isSafeInteger(declared) && declared > 0 ? Math.min(declared, max) : 64 * 1024;
    const body = new Accumulator(initial);
    req.on('data', (c: Buffer) => {
      if (body.used + c.length > max) {
        req.destroy();
        reject(new BodyTooLarge(`request body over ${max} bytes`));
        return;
      }
      body.push(c);
    });
    req.on('end', () => resolve(body.result()));
    req.on('error', reject);
  });
}

type Callback = (err: Error | null, out: Buffer) => void;
type Zlib = Record<string, ((b: Buffer, cb: Callback) => void) | undefined>;

/** content-encoding → the node:zlib function that undoes it (zstd only on a Node that has it). */
const DECODERS: Record<string, string> = {
  gzip: 'gunzip',
  'x-gzip': 'gunzip',
  deflate: 'inflate',
  br: 'brotliDecompress',
  zstd: 'zstdDecompress',
};

export type Decoded = { ok: true; body: Buffer; encoded: boolean } | { ok: false; reason: string };

/**
 * The body decoded per its content-encoding (a comma list applies right to left). `ok: false` when
 * an encoding is unknown here or the bytes do not decode: the caller forwards the original.
 */
export async function decodeBody(body: Buffer, contentEncoding: string | undefined): Promise<Decoded> {
  const codings = (contentEncoding ?? '')
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
  if (codings.length === 0) return { ok: true, body, encoded: false };
  // Loaded here, not at the top: a bundle hoists static imports into every cg start-up.
  const zlib = (await import('node:zlib')) as unknown as Zlib;
  let out = body;
  for (const coding of codings.reverse()) {
    const decode = zlib[DECODERS[coding] ?? ''];
    if (!decode) return { ok: false, reason: `content-encoding ${coding} is not supported by this Node` };
    try {
      const input = out;
      out = await new Promise<Buffer>((res, rej) => decode(input, (e, r) => (e ? rej(e) : res(r))));
    } catch {
      return { ok: false, reason: `body does not decode as ${coding}` };
    }
  }
  return { ok: true, body: out, encoded: codings.length > 0 };
}
