import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers.js';
import { cg, cgAsync } from './run-cg.js';
import { expectExpandsMarkers, stash } from './stash-originals.js';

describe('cg expand on piped text', () => {
  it('expands every marker in the text and ignores the words around them, "cg:" included', () => {
    const store = tempDir();
    const [key] = stash(store, ['the original\n']);
    const r = cg(['expand'], {
      input: `the cg: tool said\n<<cg:${key}>> [full output: cg expand ${key}]\n`,
      storeDir: store,
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toBe('the original\n');
  });

  it('says there is no marker when the text holds none, and exits 1', () => {
    const r = cg(['expand'], { input: 'no markers here\n' });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('cg: expand: no cg marker in the input (expected <<cg:KEY>> or a key)\n');
    expect(r.out).toBe('');
  });

  it('reads a bare key, or several, piped in on their own', () => {
    const store = tempDir();
    const [a, b] = stash(store, ['first\n', 'second\n']);
    expect(cg(['expand'], { input: `${a}\n`, storeDir: store }).out).toBe('first\n');
    expect(cg(['expand'], { input: `${a!.toUpperCase()} ${b}\n`, storeDir: store }).out).toBe(
      `=== cg expand ${a} ===\nfirst\n=== cg expand ${b} ===\nsecond\n`,
    );
  });

  it('expands 2,000 markers piped in, each key once, in the order they first appear', async () => {
    await expectExpandsMarkers(tempDir(), 2_000);
  });
});

describe('cg expand --grep', () => {
  it('matches with RE2: (a+)+$ answers at once on lines that make a backtracking engine run for ever', async () => {
    const store = tempDir();
    const evil = `${'a'.repeat(36)}b`;
    const [key] = stash(store, [`${evil}\n${'a'.repeat(36)}\nok\n`]);
    const r = await cgAsync(['expand', key!, '--grep', '(a+)+$'], { storeDir: store });
    expect(r.code).toBe(0);
    expect(r.out).toBe(`2:${'a'.repeat(36)}\n`);
  });

  it('refuses a look-ahead with one line naming --grep, and exits 2', () => {
    const store = tempDir();
    const [key] = stash(store, ['foobar\n']);
    const r = cg(['expand', key!, '--grep', 'foo(?=bar)'], { storeDir: store });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^cg: --grep: "foo\(\?=bar\)" uses a look-ahead \(\?=…\), which RE2 does not support/,
    );
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.out).toBe('');
  });

  it.each([
    ['as a key', (bogus: string) => ['expand', bogus]],
    ['as a --lines range', (bogus: string) => ['expand', '0123456789abcdef', '--lines', bogus]],
    ['as a --grep pattern', (bogus: string) => ['expand', '0123456789abcdef', '--grep', `(?=${bogus}`]],
  ])('echoes only a short excerpt of a 100 KB argument given %s, in one line, exit 2', (_name, args) => {
    const r = cg(args('a'.repeat(100_000)), { storeDir: tempDir() });
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr.length).toBeLessThan(300);
    expect(r.stderr).toMatch(/…" \(\d+ characters\)/);
  });
});
