import { describe, expect, it } from 'vitest';
import { filterOf } from '../../filter-source.js';

const find = await filterOf({
  match: '^\\$ find',
  path_tree: { entry: '^(\\S(?:[^:\\n]|:[^\\s\\d])*)$', max_chars: 2000 },
});
const lsR = await filterOf({
  match: '^\\$ ls',
  strip_lines_matching: ['^total \\d+$'],
  path_tree: {
    header: '^(\\S.*):$',
    entry:
      '^(?:[-dl][-rwxsStT]{9}\\s+\\d+\\s+\\S+\\s+\\S+\\s+(\\d+)\\s+\\w{3}\\s+\\d+\\s+[\\d:]+\\s)?(\\S.*?)(?: -> .*)?$',
    path: '$2',
    size: '$1',
    dir: '^d',
  },
});

describe('path_tree', () => {
  it('writes the tree where the first path was and keeps every other line in place', () => {
    const input = [
      'src',
      'src/a.ts',
      "find: 'src/secret': Permission denied",
      'src/dsl',
      'src/dsl/b.ts',
      'src/dsl/c.ts',
      'src/dsl/d.ts',
      'src/text',
      'src/text/e.ts',
      'src/text/f.ts',
      '',
    ].join('\n');
    expect(find.run(input).text).toBe(
      [
        'src/ (6 files, 2 dirs): a.ts',
        '  dsl/ (3 files): b.ts c.ts d.ts',
        '  text/ (2 files): e.ts f.ts',
        "find: 'src/secret': Permission denied",
        '',
      ].join('\n'),
    );
  });

  it('reads ls -R sections: the header names the directory, . and .. go, ls -l columns give directories and sizes', () => {
    const input = [
      'src:',
      'total 8',
      'drwxr-xr-x 2 root root 4096 Dec  2 04:39 .',
      'drwxr-xr-x 9 root root 4096 Dec  2 04:39 ..',
      'drwxr-xr-x 2 root root 4096 Dec  2 04:39 dsl',
      '-rw-r--r-- 1 root root  900 Dec  2 04:22 cli.ts',
      '',
      'src/dsl:',
      'total 24',
      '-rw-r--r-- 1 root root 9710 Dec  2 04:22 compile.ts',
      '-rw-r--r-- 1 root root 2523 Dec  2 04:22 parse.ts',
      '',
    ].join('\n');
    expect(lsR.run(input).text).toBe(
      ['src/ (3 files, 1 dir): cli.ts (900)', '  dsl/ (2 files): compile.ts (9710) parse.ts (2523)', ''].join(
        '\n',
      ),
    );
  });

  it('leaves a listing the tree would not shorten as it is', () => {
    const input = 'a/x\nb/y\n';
    expect(find.run(input)).toEqual({ text: input, loss: 'none' });
  });
});
