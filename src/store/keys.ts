/**
 * Content keys: the first 64 bits of SHA-256 over the original's UTF-8 bytes, as 16 lowercase hex
 * (DESIGN §5). isKey is the only gate a key passes before it becomes part of a path.
 */
import { createHash } from 'node:crypto';

const KEY_RE = /^[0-9a-f]{16}$/;

export function keyOf(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex').slice(0, 16);
}

export function isKey(key: string): boolean {
  return KEY_RE.test(key);
}
