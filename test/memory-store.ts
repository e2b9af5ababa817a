/**
 * An in-memory Store for unit tests of the pipeline: same contract as the disk store (content
 * keys, collision refusal), plus switches to make it unwritable or failing.
 */
import { keyOf } from '../src/store/keys.js';
import type { PruneResult, PutResult, Store, StoreInfo } from '../src/store/store.js';

export class MemoryStore implements Store {
  readonly dir = '(memory)';
  readonly entries = new Map<string, Buffer>();
  canWrite = true;
  failPuts = false;
  puts = 0;

  async writable() {
    return this.canWrite;
  }
  async put(original: string, given?: Uint8Array): Promise<PutResult> {
    if (given && !Buffer.from(given).equals(Buffer.from(original, 'utf8')))
      throw new Error('bytes do not match text');
    this.puts++;
    const key = keyOf(original);
    if (!this.canWrite) return { ok: false, key, reason: 'unwritable' };
    if (this.failPuts) return { ok: false, key, reason: 'error', detail: 'disk full' };
    const bytes = Buffer.from(original, 'utf8');
    const existing = this.entries.get(key);
    if (existing)
      return existing.equals(bytes)
        ? { ok: true, key, created: false }
        : { ok: false, key, reason: 'collision' };
    this.entries.set(key, bytes);
    return { ok: true, key, created: true };
  }
  async get(key: string) {
    return this.entries.get(key);
  }
  async has(key: string) {
    return this.entries.has(key);
  }
  async info(): Promise<StoreInfo> {
    let bytes = 0;
    for (const b of this.entries.values()) bytes += b.length;
    return {
      dir: this.dir,
      entries: this.entries.size,
      bytes,
      ttlDays: 14,
      maxBytes: 1 << 29,
      compress: false,
    };
  }
  async prune(): Promise<PruneResult> {
    return { removed: 0, freedBytes: 0, remaining: this.entries.size, remainingBytes: 0 };
  }
  async clear() {
    const n = this.entries.size;
    this.entries.clear();
    return n;
  }
}
