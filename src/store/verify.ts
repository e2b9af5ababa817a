/**
 * A stored form judged against its key before anything trusts it. Whoever can write the store can
 * put anything under a key (a shared Redis is shared; a disk store may be planted), and a 14 MB gzip
 * value can inflate to 3 GB. So every stored form is inflated with an output limit — for a read,
 * the largest original the store keeps (store.max_entry_mb); for a put's compare, the length of the
 * original it brings — and no bytes that have not yet proved to hash to their key are held beyond
 * HELD_MAX: past that a read goes on hashing only, and an original that passes is inflated a second
 * time, straight into a buffer of its exact size. What exceeds its limit, does not decode or does
 * not hash to its key is corrupt (read as such, replaced by the next put of the original).
 */
import { sameUtf8, utf8Slices } from '../utf8-slices.js';
import { gunzipUpTo, inflateEach, isGzip } from './codec.js';
import { keyHasher, keyOf } from './keys.js';

/**
 * Unverified bytes held at most (beyond the stored form itself): an original up to this size is
 * inflated once and hashed; a larger one is hashed as it streams by, then inflated again. A planted
 * value that inflates to gigabytes therefore costs this much memory, and CPU up to the read limit.
 */
export const HELD_MAX = 32 << 20;

export type Verdict = { found: true; bytes: Buffer } | { found: false; why: 'corrupt'; detail: string };

/** How the entry already under a key relates to the original a put brings. */
export type Comparison = { is: 'same' } | { is: 'different' } | { is: 'corrupt'; detail: string };

const MIB = 2 ** 20;

function corrupt(detail: string): { found: false; why: 'corrupt'; detail: string } {
  return { found: false, why: 'corrupt', detail };
}

const MISMATCH = 'its bytes do not match its key';

function tooLarge(limit: number): string {
  return `it holds more than store.max_entry_mb (${sizeOf(limit)}), the largest original kept`;
}

function undecodable(err: unknown): string {
  return `its compressed bytes do not decode (${err instanceof Error ? err.message : String(err)})`;
}

function sizeOf(n: number): string {
  return n >= MIB && n % MIB === 0 ? `${n / MIB} MiB` : `${n} bytes`;
}

/** The original under `key` from its stored form, inflating at most `limit` bytes. */
export async function readStored(raw: Buffer, key: string, limit: number): Promise<Verdict> {
  if (!isGzip(raw)) {
    if (raw.length > limit) return corrupt(tooLarge(limit));
    return keyOf(raw) === key ? { found: true, bytes: raw } : corrupt(MISMATCH);
  }
  let bytes: Buffer | undefined;
  try {
    bytes = await gunzipUpTo(raw, Math.min(limit, HELD_MAX));
  } catch (err) {
    return corrupt(undecodable(err));
  }
  if (bytes) return keyOf(bytes) === key ? { found: true, bytes } : corrupt(MISMATCH);
  if (limit <= HELD_MAX) return corrupt(tooLarge(limit));
  const checked = await hashedLength(raw, key, limit);
  if (typeof checked === 'string') return corrupt(checked);
  return exactly(raw, checked);
}

/**
 * The inflated length of a stored form that hashes to `key` within `limit` bytes, holding none of
 * them; otherwise why it is corrupt.
 */
async function hashedLength(raw: Buffer, key: string, limit: number): Promise<number | string> {
  const hash = keyHasher();
  let total = 0;
  let complete: boolean;
  try {
    complete = await inflateEach(raw, (chunk) => {
      total += chunk.length;
      if (total > limit) return false;
      hash.update(chunk);
      return true;
    });
  } catch (err) {
    return undecodable(err);
  }
  if (!complete) return tooLarge(limit);
  return hash.key() === key ? total : MISMATCH;
}

/** A verified stored form inflated again into a buffer of the length the check measured. */
async function exactly(raw: Buffer, length: number): Promise<Verdict> {
  const out = Buffer.allocUnsafe(length);
  let at = 0;
  try {
    const complete = await inflateEach(raw, (chunk) => {
      if (at + chunk.length > length) return false;
      at += chunk.copy(out, at);
      return true;
    });
    // Inflating the same bytes twice gives the same output; anything else is not to be trusted.
    if (complete && at === length) return { found: true, bytes: out };
  } catch (err) {
    return corrupt(undecodable(err));
  }
  return corrupt(MISMATCH);
}

/**
 * Whether the stored form under `key` holds exactly `original` (its UTF-8 bytes, or a large text
 * encoded a slice at a time). The compare runs while inflating and stops at the first difference or
 * once the stored form is longer, so what it inflates is bounded by the original's own length. Only
 * when it differs is the stored form hashed (streaming, within `limit`, holding nothing), to tell a
 * real entry of other bytes (a collision: never replaced) from a corrupt one (replaced).
 */
export async function compareStored(
  raw: Buffer,
  key: string,
  original: Buffer | string,
  limit: number,
): Promise<Comparison> {
  const length = typeof original === 'string' ? Buffer.byteLength(original, 'utf8') : original.length;
  if (!isGzip(raw)) {
    if (
      raw.length === length &&
      (typeof original === 'string' ? sameUtf8(raw, original) : raw.equals(original))
    )
      return { is: 'same' };
    if (raw.length > limit) return { is: 'corrupt', detail: tooLarge(limit) };
    return keyOf(raw) === key ? { is: 'different' } : { is: 'corrupt', detail: MISMATCH };
  }
  let same: boolean;
  try {
    same = await inflatesTo(raw, original, length);
  } catch (err) {
    return { is: 'corrupt', detail: undecodable(err) };
  }
  if (same) return { is: 'same' };
  const checked = await hashedLength(raw, key, limit);
  if (typeof checked === 'string') return { is: 'corrupt', detail: checked };
  return { is: 'different' };
}

/** Whether a gzip stored form inflates to exactly the original, inflating no more than its length. */
async function inflatesTo(raw: Buffer, original: Buffer | string, length: number): Promise<boolean> {
  if (length <= HELD_MAX) {
    const bytes = await gunzipUpTo(raw, length);
    if (!bytes || bytes.length !== length) return false;
    return typeof original === 'string' ? sameUtf8(bytes, original) : bytes.equals(original);
  }
  const expected = new ExpectedBytes(original);
  const complete = await inflateEach(raw, (chunk) => expected.next(chunk));
  return complete && expected.done();
}

/** The original's bytes, consumed chunk by chunk as the stored form inflates (a text a slice at a time). */
class ExpectedBytes {
  private piece: Buffer;
  private at = 0;
  private readonly rest: Iterator<string> | undefined;

  constructor(original: Buffer | string) {
    if (typeof original === 'string') {
      this.piece = Buffer.alloc(0);
      this.rest = utf8Slices(original)[Symbol.iterator]();
    } else {
      this.piece = original;
    }
  }

  /** Whether chunk is exactly the original's next bytes (false once it differs or runs past the end). */
  next(chunk: Buffer): boolean {
    for (let off = 0; off < chunk.length; ) {
      if (this.at === this.piece.length && !this.advance()) return false;
      const take = Math.min(chunk.length - off, this.piece.length - this.at);
      if (chunk.compare(this.piece, this.at, this.at + take, off, off + take) !== 0) return false;
      off += take;
      this.at += take;
    }
    return true;
  }

  /** Whether every byte of the original was matched. */
  done(): boolean {
    return this.at === this.piece.length && !this.advance();
  }

  private advance(): boolean {
    for (;;) {
      const n = this.rest?.next();
      if (!n || n.done) return false;
      if (n.value.length === 0) continue;
      this.piece = Buffer.from(n.value, 'utf8');
      this.at = 0;
      return true;
    }
  }
}
