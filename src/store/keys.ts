/**
 * Content keys: the first 64 bits of SHA-256 over the original's UTF-8 bytes, as 16 lowercase hex
 * (DESIGN §5). isKey is the only gate a key passes before it becomes part of a path.
 */
import type { Hash } from 'node:crypto';
import { createRequire } from 'node:module';
import { utf8Slices } from '../utf8-slices.js';

// node:crypto costs ~7 ms to load; most runs (small outputs, nothing dropped) never hash at all.
let cryptoModule: typeof import('node:crypto') | undefined;
function sha256(): Hash {
  cryptoModule ??= createRequire(import.meta.url)('node:crypto') as typeof import('node:crypto');
  return cryptoModule.createHash('sha256');
}

const KEY_RE = /^[0-9a-f]{16}$/;

/** Keys of byte buffers already hashed, by identity: the pipeline and the store both need the key
 * of the same 100 MB input, and hashing it twice costs ~80 ms. */
const byBuffer = new WeakMap<Uint8Array, string>();

/**
 * The key: the digest's first 8 bytes in hex, made as a string of its own (a slice of the whole
 * digest's hex would keep that alive beside it, for each of the tens of thousands a session holds).
 */
function keyOfDigest(digest: Buffer): string {
  return digest.toString('hex', 0, 8);
}

export function keyOf(data: string | Uint8Array): string {
  if (typeof data === 'string')
    return data.length < SLICED_MIN ? keyOfDigest(sha256().update(data).digest()) : slicedKeyOf(data);
  let key = byBuffer.get(data);
  if (key === undefined) {
    key = keyOfDigest(sha256().update(data).digest());
    byBuffer.set(data, key);
  }
  return key;
}

/** A key made from bytes given a chunk at a time (an original inflated without being held). */
export interface KeyHasher {
  update(chunk: Uint8Array): void;
  key(): string;
}

export function keyHasher(): KeyHasher {
  const hash = sha256();
  return {
    update: (chunk) => void hash.update(chunk),
    key: () => keyOfDigest(hash.digest()),
  };
}

/**
 * Records the key of bytes made from an original whose key is known (the session hashed the same
 * text): the store's put of those bytes then does not hash them again. Only for bytes that are
 * exactly that original's UTF-8.
 */
export function knownKey(bytes: Uint8Array, key: string): void {
  byBuffer.set(bytes, key);
}

/**
 * Originals of at least this many UTF-16 units are hashed and stashed a slice at a time
 * (src/utf8-slices.ts), never as one more copy of their bytes: the pipeline and the disk store
 * both take this path for a large text whose bytes nobody holds.
 */
export const SLICED_MIN = 8 << 20;

/**
 * The last large text hashed, and its key: the pipeline takes the key of an original when it
 * places the marker, and the store again when it stashes it, and a second pass over 60 MB costs
 * ~0.1 s. One entry, so at most one text is kept alive by it.
 */
let lastText: string | undefined;
let lastKey = '';

/**
 * keyOf of a large text, hashed a slice at a time (the same digest as its whole encoding); the
 * session's replay, the marker and the stash then hash a large original once between them.
 */
function slicedKeyOf(text: string): string {
  if (text === lastText) return lastKey;
  const hash = sha256();
  for (const slice of utf8Slices(text)) hash.update(slice, 'utf8');
  lastText = text;
  lastKey = keyOfDigest(hash.digest());
  return lastKey;
}

export function isKey(key: string): boolean {
  return KEY_RE.test(key);
}
