/**
 * Stored forms judged before they are trusted (src/store/verify.ts): a gzip value that inflates far
 * past its limit is corrupt, and the decompressor stops at the limit rather than inflating it all.
 * How far zlib got is counted at the codec (every inflated byte passes gunzipUpTo or inflateEach),
 * so the tests assert the work done, not the memory a busy machine happens to report.
 */
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { keyOf } from '../../../src/store/keys.js';
import { compareStored, HELD_MAX, readStored } from '../../../src/store/verify.js';

const inflated = vi.hoisted(() => ({ bytes: 0 }));
vi.mock('../../../src/store/codec.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../../src/store/codec.js')>();
  return {
    ...actual,
    gunzipUpTo: async (raw: Buffer, max: number) => {
      const out = await actual.gunzipUpTo(raw, max);
      // Over the limit zlib stops and says so; what it got to is at most the limit and a chunk.
      inflated.bytes += out ? out.length : max;
      return out;
    },
    inflateEach: (raw: Buffer, take: (chunk: Buffer) => boolean) =>
      actual.inflateEach(raw, (chunk) => {
        inflated.bytes += chunk.length;
        return take(chunk);
      }),
  };
});

const MIB = 2 ** 20;
const CHUNK = MIB; // zlib's output chunk for a streamed inflate (codec.ts)

const made = new Map<number, Buffer>();
/** gzip of `n` zero bytes: about a thousandth of its size, as a planted value would be. */
function zeros(n: number): Buffer {
  const bomb = made.get(n) ?? gzipSync(Buffer.alloc(n), { level: 1 });
  made.set(n, bomb);
  return bomb;
}

afterEach(() => {
  inflated.bytes = 0;
});

describe('reading a stored form', () => {
  it('reads a gzip original back once it hashes to its key', async () => {
    const text = Buffer.from('line of a log\n'.repeat(5000));
    const r = await readStored(gzipSync(text), keyOf(text), 64 * MIB);
    expect(r).toMatchObject({ found: true });
    expect((r as { bytes: Buffer }).bytes.equals(text)).toBe(true);
  });

  it('calls a value that inflates past the limit corrupt, stopping at the limit', async () => {
    const bomb = zeros(64 * MIB);
    const r = await readStored(bomb, '0123456789abcdef', 4 * MIB);
    expect(r).toMatchObject({
      found: false,
      why: 'corrupt',
      detail: expect.stringMatching(/max_entry_mb \(4 MiB\)/),
    });
    expect(inflated.bytes).toBeLessThanOrEqual(4 * MIB + CHUNK);
  });

  it('hashes a value larger than what it holds unverified as it streams by, stopping at the limit', async () => {
    const limit = HELD_MAX + 16 * MIB;
    const r = await readStored(zeros(64 * MIB), '0123456789abcdef', limit);
    expect(r).toMatchObject({ found: false, why: 'corrupt' });
    // The in-place try stops at HELD_MAX, the hashing pass at the limit; no second inflate.
    expect(inflated.bytes).toBeLessThanOrEqual(HELD_MAX + limit + CHUNK);
  });

  it('calls a value that does not hash to its key corrupt, even one larger than what it holds unverified', async () => {
    const big = Buffer.alloc(HELD_MAX + 3 * MIB, 'y\n');
    const r = await readStored(zeros(big.length), keyOf(big), HELD_MAX * 2);
    expect(r).toMatchObject({ found: false, why: 'corrupt', detail: 'its bytes do not match its key' });
  });

  it('reads an original larger than what it holds unverified: hashed first, then inflated into its exact size', async () => {
    const big = Buffer.alloc(HELD_MAX + 3 * MIB, 'y\n');
    const r = await readStored(gzipSync(big, { level: 1 }), keyOf(big), HELD_MAX * 2);
    expect(r).toMatchObject({ found: true });
    expect((r as { bytes: Buffer }).bytes.equals(big)).toBe(true);
  });

  it('calls a raw stored form larger than the limit corrupt without hashing it', async () => {
    const raw = Buffer.alloc(2048, 'x');
    expect(await readStored(raw, keyOf(raw), 1024)).toMatchObject({ found: false, why: 'corrupt' });
    expect(await readStored(raw, keyOf(raw), 4096)).toMatchObject({ found: true });
  });

  it('calls a damaged gzip stream corrupt', async () => {
    const r = await readStored(Buffer.from([0x1f, 0x8b, 8, 0, 1, 2, 3]), '0123456789abcdef', MIB);
    expect(r).toMatchObject({ found: false, why: 'corrupt', detail: expect.stringMatching(/do not decode/) });
  });
});

describe("comparing a stored form with a put's original", () => {
  const original = Buffer.from('the output a run stashes again\n'.repeat(300));
  const key = keyOf(original);

  it('finds the same original the same, as bytes or as text', async () => {
    expect(await compareStored(gzipSync(original), key, original, 64 * MIB)).toEqual({ is: 'same' });
    expect(await compareStored(gzipSync(original), key, original.toString(), 64 * MIB)).toEqual({
      is: 'same',
    });
    expect(await compareStored(original, key, original, 64 * MIB)).toEqual({ is: 'same' });
  });

  it("inflates a planted value no further than the original's length to compare, then hashes it within the limit", async () => {
    const r = await compareStored(zeros(64 * MIB), key, original, 8 * MIB);
    expect(r).toMatchObject({ is: 'corrupt', detail: expect.stringMatching(/max_entry_mb \(8 MiB\)/) });
    expect(inflated.bytes).toBeLessThanOrEqual(original.length + 8 * MIB + CHUNK);
  });

  it('compares a large original while inflating, stopping at the first difference', async () => {
    const big = 'z'.repeat(HELD_MAX + 2 * MIB);
    const other = Buffer.from(`a${big.slice(1)}`);
    const r = await compareStored(gzipSync(other, { level: 1 }), keyOf(big), big, 8 * MIB);
    expect(r).toMatchObject({ is: 'corrupt' });
    // The compare stopped in its first chunk; the hashing pass at the limit.
    expect(inflated.bytes).toBeLessThanOrEqual(CHUNK + 8 * MIB + CHUNK);
    expect(
      await compareStored(gzipSync(Buffer.from(big), { level: 1 }), keyOf(big), big, HELD_MAX * 2),
    ).toEqual({
      is: 'same',
    });
  });

  it('tells a real entry of other bytes (a collision) from a corrupt one', async () => {
    const other = Buffer.from('other bytes under the same key\n'.repeat(100));
    // A real collision cannot be found for a test: the key is the other bytes' own.
    expect(await compareStored(gzipSync(other), keyOf(other), original, 64 * MIB)).toEqual({
      is: 'different',
    });
    expect(await compareStored(gzipSync(other), key, original, 64 * MIB)).toMatchObject({ is: 'corrupt' });
    expect(await compareStored(other, keyOf(other), original, 64 * MIB)).toEqual({ is: 'different' });
  });
});
