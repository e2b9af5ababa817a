/**
 * Inputs past the size where cg lets go of their bytes (8 MiB) and stashes a slice at a time: what
 * reaches stdout and what `cg expand` gives back are still exact, byte for byte.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { keyOf } from '../../src/store/keys.js';
import { tempDir } from '../helpers.js';
import { cg } from './run-cg.js';

const KEY_RE = /<<cg:([0-9a-f]{16})>>/;

/** A log of about `bytes`, non-ASCII throughout, with an emoji at many slice boundaries. */
function log(bytes: number): string {
  const lines: string[] = [];
  let n = 0;
  for (let i = 0; n < bytes; i++) {
    const line = `2026-12-01T10:00:${String(i % 60).padStart(2, '0')}Z INFO naïve 日本語 ${i % 3 ? '' : '😀'} worker=${i % 8} id=${i}\n`;
    lines.push(line);
    n += Buffer.byteLength(line);
  }
  return lines.join('');
}

describe('a large input', () => {
  it('is crushed as JSON whose bytes were let go of, and cg expand gives back the exact bytes from the sliced stash', () => {
    const store = tempDir('cg-large-json-');
    const rows = Array.from({ length: 150_000 }, (_, i) => ({
      id: i,
      name: `naïve 😀 ${i}`,
      ok: i % 97 !== 0,
    }));
    const input = `${JSON.stringify(rows, null, 1)}\n`;
    expect(Buffer.byteLength(input)).toBeGreaterThan(8 << 20);
    const r = cg(['--components', 'smartcrush'], { input, storeDir: store });
    expect(r.code).toBe(0);
    const key = KEY_RE.exec(r.out)?.[1];
    expect(key).toBe(keyOf(Buffer.from(input, 'utf8')));
    const back = cg(['expand', key!], { storeDir: store });
    expect(back.stdout.equals(Buffer.from(input, 'utf8'))).toBe(true);
  });

  it('is folded, and cg expand gives back its exact bytes', () => {
    const store = tempDir('cg-large-');
    const input = log(12 << 20);
    const r = cg(['--components', 'collapse'], { input, storeDir: store });
    expect(r.code).toBe(0);
    const key = KEY_RE.exec(r.out)?.[1];
    expect(key).toBe(keyOf(Buffer.from(input, 'utf8')));
    const back = cg(['expand', key!], { storeDir: store });
    expect(back.code).toBe(0);
    expect(back.stdout.equals(Buffer.from(input, 'utf8'))).toBe(true);
  });

  it('passes through byte for byte when nothing changes it, text or JSON whose bytes were let go of', () => {
    const input = log(10 << 20);
    const r = cg(['--components', 'format'], { input });
    expect(r.code).toBe(0);
    expect(r.stdout.equals(Buffer.from(input, 'utf8'))).toBe(true);
    const rows = Array.from({ length: 120_000 }, (_, i) => ({ id: i, name: `naïve 😀 ${i}`, tag: '日本' }));
    const json = `${JSON.stringify(rows)}\n`; // compact already: format leaves it as it is
    const j = cg(['--components', 'format'], { input: json });
    expect(j.code).toBe(0);
    expect(j.stdout.equals(Buffer.from(json, 'utf8'))).toBe(true);
  });

  it('passes through whole, exit 2, when a filter file is broken after its bytes were let go of', () => {
    const dir = tempDir('cg-large-bad-filter-');
    writeFileSync(join(dir, 'bad.yaml'), 'filters:\n  - name: [unclosed\n');
    const rows = Array.from({ length: 150_000 }, (_, i) => ({
      id: i,
      name: `naïve 😀 ${i}`,
      ok: i % 97 !== 0,
    }));
    const input = `${JSON.stringify(rows, null, 1)}\n`;
    const r = cg(['--filters', join(dir, 'bad.yaml'), '--command', 'gh api'], { input });
    expect(r.code).toBe(2);
    expect(r.stdout.equals(Buffer.from(input, 'utf8'))).toBe(true);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('comes through cg run byte for byte, and folded its original expands exact', () => {
    const store = tempDir('cg-large-run-');
    const file = join(tempDir('cg-large-run-file-'), 'big.log');
    const input = log(10 << 20);
    writeFileSync(file, input);
    const same = cg(['run', '--for-model', '-c', 'format', '--', 'cat', file], { storeDir: store });
    expect(same.code).toBe(0);
    expect(same.stdout.equals(Buffer.from(input, 'utf8'))).toBe(true);
    const folded = cg(['run', '--for-model', '-c', 'collapse', '--', 'cat', file], { storeDir: store });
    const key = KEY_RE.exec(folded.out)?.[1];
    expect(key).toBe(keyOf(Buffer.from(input, 'utf8')));
    expect(cg(['expand', key!], { storeDir: store }).stdout.equals(Buffer.from(input, 'utf8'))).toBe(true);
  });

  it('is written whole when rewritten, however its characters fall on the write slices', () => {
    const rows = Array.from({ length: 60_000 }, (_, i) => ({
      id: i,
      name: `naïve 😀 ${i}`,
      tags: ['日本', i % 5],
    }));
    const pretty = `${JSON.stringify(rows, null, 2)}\n`;
    const r = cg(['--components', 'format'], { input: pretty });
    expect(r.code).toBe(0);
    expect(r.out).toBe(`${JSON.stringify(rows)}\n`);
  });
});
