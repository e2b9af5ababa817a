/**
 * toon's memory stays a small multiple of its input (issue 13 item 9). Measured on the heap V8 may
 * use rather than on RSS, so the test is about how much cg holds, not about timing or the machine:
 * with 80 MB of old space, toon on a 12 MB table used to die of heap exhaustion (it parsed the
 * document, encoded it whole, then parsed and decoded it again for the proof: ~10× its size).
 */
import { decode, encode } from '@toon-format/toon';
import { describe, expect, it } from 'vitest';
import { cg } from './run-cg.js';

/** A compact JSON array of flat objects, one per line, of about `bytes` (bench/hotpath.mjs's shape). */
function flatArray(bytes: number): string {
  const rows: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const row = JSON.stringify({
      id: i,
      sha: ((i * 2654435761) >>> 0).toString(16).padStart(8, '0'),
      state: i % 7 === 0 ? 'failed' : 'success',
      duration_ms: (i * 37) % 1000,
      branch: `feature/${i % 100}`,
      message: `Commit ${i}: update module ${i % 50}`,
    });
    rows.push(row);
    size += row.length + 2;
  }
  return `[\n${rows.join(',\n')}\n]\n`;
}

describe('toon on a large table', () => {
  it('rewrites a 12 MB table within 80 MB of heap, with the bytes of encoding it whole', () => {
    const input = flatArray(12 << 20);
    const r = cg(['-c', 'toon'], { input, env: { NODE_OPTIONS: '--max-old-space-size=80' } });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const value = JSON.parse(input);
    expect(r.out).toBe(`${encode(value)}\n`);
    expect(decode(r.out)).toEqual(value);
  });

  it('rewrites a 12 MB object whose member is the table within 80 MB of heap, with the bytes of encoding it whole', () => {
    const rows = JSON.parse(flatArray(12 << 20)) as unknown[];
    const input = `${JSON.stringify({ total_count: rows.length, items: rows, next: null }, null, 2)}\n`;
    const r = cg(['-c', 'toon'], { input, env: { NODE_OPTIONS: '--max-old-space-size=80' } });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toBe(`${encode(JSON.parse(input))}\n`);
  });

  it('runs a preset over a 12 MB pretty-spaced table within 36 MB of heap: toon goes before format, and its size check never makes the compact copy', () => {
    // With format first (and toon's check on a compact copy), the text, its compact form and the
    // TOON were alive at once: this died of heap exhaustion below 44 MB.
    const input = flatArray(12 << 20);
    const r = cg(['--preset', 'safe', '--for-model'], {
      input,
      env: { NODE_OPTIONS: '--max-old-space-size=36' },
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toBe(`${encode(JSON.parse(input))}\n`);
  });

  it('skips a document holding no large table when it is too large to encode whole, and says so under --verbose', () => {
    const rows = (JSON.parse(flatArray(5 << 20)) as Array<{ id: number }>).map((r) => ({ id: r.id, row: r }));
    const input = `${JSON.stringify({ items: rows, total: rows.length })}\n`;
    const r = cg(['-c', 'toon', '--verbose'], { input });
    expect(r.code).toBe(0);
    expect(r.out).toBe(input);
    expect(r.stderr).toContain('[toon] stdin: skipped: too large for a whole-document toon');
  });
});
