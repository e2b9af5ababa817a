/**
 * Content keys: the first 64 bits of SHA-256 over the original's UTF-8 bytes, as 16 lowercase hex
 * (DESIGN §5). isKey is the only gate a key passes before it becomes part of a path.
 */
import type { Hash } from 'node:crypto';
import { createRequire } from 'node:module';

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

export function keyOf(data: string | Uint8Array): string {
  if (typeof data === 'string') return sha256().update(data).digest('hex').slice(0, 16);
  let key = byBuffer.get(data);
  if (key === undefined) {
    key = sha256().update(data).digest('hex').slice(0, 16);
    byBuffer.set(data, key);
  }
  return key;
}

export function isKey(key: string): boolean {
  return KEY_RE.test(key);
}
