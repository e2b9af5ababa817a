/**
 * Any size through the pipe (issue 27): an input of millions of tiny lines is compacted without an
 * array or a string per line — checked under a heap limit a per-line array would blow, not by time —
 * and an input past the pipe's cap streams through byte for byte (CG_TEST_PIPE_CAP lowers the cap so
 * that needs megabytes here, not hundreds).
 */

import { spawnSync } from 'node:child_process';
import { closeSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers.js';
import { BIN, cg } from './run-cg.js';

const KEY_RE = /<<cg:([0-9a-f]{16})>>/;
/** A heap in which 8 M lines as an array (64 MB of pointers alone) cannot exist; cg needs ~24 MB here. */
const SMALL_HEAP = ['--max-old-space-size=48'];

const dirs: string[] = [];
function dir(prefix: string): string {
  const d = tempDir(prefix);
  dirs.push(d, `${d}.state`);
  return d;
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** 16 MiB of `y\n`: 8 M lines of one character. */
const YES = 'y\n'.repeat(8 << 20);
/** `seq 1 2000000`: 2 M short lines, each a different string. */
const SEQ = Array.from({ length: 2_000_000 }, (_, i) => `${i + 1}\n`).join('');

/** The run's output is the input, or a compaction whose marker expands to exactly the input. */
function expectInputBack(out: Buffer, input: string, store: string): void {
  if (out.equals(Buffer.from(input))) return;
  const key = KEY_RE.exec(out.toString('utf8'))?.[1];
  expect(key, 'a changed output carries a marker').toBeDefined();
  expect(cg(['expand', key!], { storeDir: store }).stdout.equals(Buffer.from(input))).toBe(true);
}

describe('an input of millions of tiny lines', () => {
  for (const [name, input] of [
    ['y\\n × 8 M', YES],
    ['seq 1 2000000', SEQ],
  ] as const) {
    for (const args of [
      [],
      ['-c', 'skeleton'],
      ['-c', 'extract'],
      ['--preset', 'agent'],
      ['--command', 'git log'],
    ]) {
      it(`(${name}) goes through ${args.join(' ') || 'the default preset'} in a heap a per-line array would not fit`, () => {
        const store = dir('cg-tiny-');
        const r = cg(args, { input, storeDir: store, nodeArgs: SMALL_HEAP });
        expect(r.stderr).toBe('');
        expect(r.code).toBe(0);
        expectInputBack(r.stdout, input, store);
      });
    }
  }
});

describe('fold at its size limit', () => {
  it('folds 4 MB of a million 3-digit lines in a heap where a string per line would not fit', () => {
    const input = Array.from({ length: 1_000_000 }, (_, i) => `${String(i % 1000).padStart(3, '0')}\n`).join(
      '',
    );
    const store = dir('cg-fold-lines-');
    const r = cg(['-c', 'fold'], { input, storeDir: store, nodeArgs: ['--max-old-space-size=32'] });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toContain('[×1000000] {000..999}');
    expectInputBack(r.stdout, input, store);
  });
});

describe('an input past the pipe cap', () => {
  const CAP = { CG_TEST_PIPE_CAP: String(1 << 20) };
  const input = Array.from({ length: 200_000 }, (_, i) => `line ${i} of a long log\n`).join('');

  it('streams through byte for byte, with one line on stderr saying so', () => {
    expect(input.length).toBeGreaterThan(2 << 20);
    const r = cg([], { input, env: CAP });
    expect(r.code).toBe(0);
    expect(r.stdout.equals(Buffer.from(input))).toBe(true);
    expect(r.stderr).toMatch(/^cg: input passed 1 MB \(\d+ bytes\): streamed through raw\n$/);
  });

  it('streams a regular file on stdin larger than the cap through byte for byte', () => {
    const file = join(dir('cg-cap-file-'), 'big.log');
    writeFileSync(file, input);
    const fd = openSync(file, 'r');
    try {
      const store = dir('cg-cap-store-');
      const r = spawnSync(process.execPath, [BIN], {
        stdio: [fd, 'pipe', 'pipe'],
        env: { PATH: process.env.PATH ?? '', HOME: store, CG_STORE_DIR: join(store, 's'), ...CAP },
        maxBuffer: 1 << 30,
      });
      expect(r.status).toBe(0);
      expect(r.stdout.equals(Buffer.from(input))).toBe(true);
      expect(r.stderr.toString()).toMatch(/streamed through raw/);
    } finally {
      closeSync(fd);
    }
  });

  it('is still compacted under the cap', () => {
    const store = dir('cg-cap-under-');
    const small = input.slice(0, 512 * 1024);
    const r = cg([], { input: small, env: CAP, storeDir: store });
    expect(r.code).toBe(0);
    expect(r.stdout.length).toBeLessThan(small.length / 10);
    expectInputBack(r.stdout, small, store);
  });

  it('passes through whole and still exits 2 on an unknown component', () => {
    const r = cg(['-c', 'nope'], { input, env: CAP });
    expect(r.code).toBe(2);
    expect(r.stdout.equals(Buffer.from(input))).toBe(true);
    expect(r.stderr).toMatch(/nope/);
  });

  it('holds text past U+00FF up to 3/16 of the cap (its string is UTF-16), Latin-1 text up to the cap', () => {
    const line = (mark: string) => (i: number) => `${mark} case ${i} passed in 3 ms\n`;
    const text = (mark: string, n: number) => Array.from({ length: n }, (_, i) => line(mark)(i)).join('');
    const wide = text('✓', 8000);
    expect(Buffer.byteLength(wide)).toBeGreaterThan((3 << 20) / 16);
    const r = cg([], { input: wide, env: CAP });
    expect(r.code).toBe(0);
    expect(r.stdout.equals(Buffer.from(wide))).toBe(true);
    expect(r.stderr).toMatch(
      /^cg: input passed 0\.1875 MB of text beyond Latin-1 \(\d+ bytes\): passed through raw\n$/,
    );
    for (const input of [text('é', 8000), text('✓', 4000)]) {
      const store = dir('cg-cap-wide-');
      const c = cg([], { input, env: CAP, storeDir: store });
      expect(c.code).toBe(0);
      expect(c.stdout.length).toBeLessThan(Buffer.byteLength(input) / 10);
      expectInputBack(c.stdout, input, store);
    }
  });

  it('passes through whole when the output goes out raw anyway (CG_DISABLE=1)', () => {
    const r = cg([], { input, env: { ...CAP, CG_DISABLE: '1' } });
    expect(r.code).toBe(0);
    expect(r.stdout.equals(Buffer.from(input))).toBe(true);
    expect(r.stderr).toBe('');
  });
});

describe('cg run past its spool cap', () => {
  it('streams the output through byte for byte and says so in one line, as the pipe does', () => {
    const bytes = 65 << 20;
    const r = cg(['run', '--for-model', '--shell', `yes | head -c ${bytes}`]);
    expect(r.code).toBe(0);
    expect(r.stdout.length).toBe(bytes);
    expect(r.stdout.indexOf('y\ny\n')).toBe(0);
    expect(r.stderr).toBe(`cg: output passed 64 MB (${bytes} bytes): streamed through raw\n`);
  });
});
