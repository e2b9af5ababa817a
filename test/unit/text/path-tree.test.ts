import { describe, expect, it } from 'vitest';
import { parseSize, renderPathTree } from '../../../src/text/path-tree.js';

const files = (paths: string[]) => paths.map((path) => ({ path, dir: false }));
const chars = (lines: string[]) => lines.reduce((n, l) => n + l.length + 1, 0);

/** A listing of `dirs` package directories under /usr/share/doc, each with `each` files. */
function docs(dirs: number, each: number): string[] {
  const out = ['/usr/share/doc'];
  for (let d = 0; d < dirs; d++) {
    out.push(`/usr/share/doc/package-${d}`);
    for (let f = 0; f <= (d % each) + 1; f++) out.push(`/usr/share/doc/package-${d}/file-${f}.gz`);
  }
  return out;
}

describe('renderPathTree', () => {
  it('rolls a path list up under the directory every path shares, each directory with what lies beneath it', () => {
    const tree = renderPathTree(
      files(['src/a.ts', 'src/b.ts', 'src/dsl/c.ts', 'src/dsl/d.ts', 'src/dsl/deep/e.ts']),
      10_000,
    );
    expect(tree).toEqual([
      'src/ (5 files, 2 dirs): a.ts b.ts',
      '  dsl/ (3 files, 1 dir): c.ts d.ts',
      '    deep/ (1 file): e.ts',
    ]);
  });

  it('names every directory of a level before any of the next, largest first, and stays within its budget', () => {
    const list = docs(400, 4);
    for (const budget of [2_000, 6_000, 20_000]) {
      const tree = renderPathTree(files(list), budget)!;
      expect(chars(tree)).toBeLessThanOrEqual(budget);
      expect(tree[0]).toMatch(/^\/usr\/share\/doc\/ \(\d+ files, 400 dirs\)/);
    }
    const wide = renderPathTree(files(list), 20_000)!.join('\n');
    for (let d = 0; d < 400; d++) expect(wide).toContain(`package-${d}/`);
    const narrow = renderPathTree(files(list), 2_000)!.join('\n');
    expect(narrow).toMatch(/… \+\d+ more dirs$/);
    // Largest first: the packages with the most files come before those with fewest.
    expect(narrow.indexOf('package-3/')).toBeLessThan(
      narrow.indexOf('package-0/') === -1 ? Infinity : narrow.indexOf('package-0/'),
    );
  });

  it('never writes a template over path names: every name it shows is a name the list has', () => {
    const tree = renderPathTree(files(docs(50, 3)), 3_000)!.join('\n');
    expect(tree).not.toMatch(/\[×\d+\]|\{[^}]*\|/);
  });

  it('shows a directory own size only when the listing gives it as a total (du), not the size of its entry (ls -l)', () => {
    const du = renderPathTree(
      [
        { path: 'pkg/a.py', dir: false, size: 4096, sizeText: '4.0K' },
        { path: 'pkg/b.py', dir: false, size: 8192, sizeText: '8.0K' },
        { path: 'pkg', dir: false, size: 12288, sizeText: '12K' },
      ],
      1_000,
      { dirTotals: true },
    );
    expect(du).toEqual(['pkg/ 12K (2 files): b.py (8.0K) a.py (4.0K)']);
    const ls = renderPathTree(
      [
        { path: 'pkg', dir: true, size: 4096, sizeText: '4096' },
        { path: 'pkg/a.py', dir: false, size: 30_000, sizeText: '30000' },
        { path: 'pkg/b.py', dir: false, size: 100, sizeText: '100' },
      ],
      1_000,
    );
    expect(ls).toEqual(['pkg/ (2 files): a.py (30000) b.py (100)']);
  });

  it('counts a leaf the listing marks a directory (tar t, ls -l) as a directory', () => {
    expect(renderPathTree([...files(['a/x.txt']), { path: 'a/empty/', dir: true }], 1_000)).toEqual([
      'a/ (1 file, 1 dir): x.txt',
      '  empty/ (empty)',
    ]);
  });

  it('leaves a single path alone', () => {
    expect(renderPathTree(files(['a/b']), 1_000)).toBeUndefined();
  });
});

describe('parseSize', () => {
  it('reads the sizes listings write', () => {
    expect(parseSize('4096')).toBe(4096);
    expect(parseSize('1,234')).toBe(1234);
    expect(parseSize('12K')).toBe(12 * 1024);
    expect(parseSize('1.5M')).toBe(1.5 * 1024 ** 2);
    expect(parseSize('-')).toBeUndefined();
  });
});
