/** The names helper the golden tests compare outlines with: it must see members and constants too. */
import { describe, expect, it } from 'vitest';
import { findLanguage } from '../../../src/code/languages.js';
import { declaredNames } from './names.js';

const names = async (lang: string, code: string) =>
  (await declaredNames(findLanguage(lang)!, code)).map((n) => n.slice(n.indexOf(' ') + 1));

describe('declared names', () => {
  it('include fields, enum members, constants and module attributes, not locals', async () => {
    expect(await names('ts', 'const LIMIT = 3;\nclass A { size = 1; m() { const local = 2; } }\n')).toEqual([
      'LIMIT',
      'A',
      'size',
      'm',
    ]);
    expect(await names('java', 'enum E { RED, BLUE; private int shade; }\n')).toEqual([
      'E',
      'RED',
      'BLUE',
      'shade',
      'shade',
    ]);
    expect(
      await names('python', 'TIMEOUT = 5\nclass C:\n    rate = 1\n    def f(self):\n        x = 2\n'),
    ).toEqual(['TIMEOUT', 'C', 'rate', 'f']);
    expect(await names('kotlin', 'class P { val root: Path? = null }\n')).toEqual(['P', 'root']);
    expect(await names('rust', 'enum K { A, B }\nstatic N: u8 = 1;\n')).toEqual(['K', 'A', 'B', 'N']);
  });

  it('read C the way the outline does, with split #if branches blanked', async () => {
    const code =
      'int f(int a) {\n  if (a) {\n  }\n#if X\n  else if (a > 1) {\n  }\n#endif\n  else if (a > 2) {\n  }\n  return a;\n}\n';
    expect(await names('c', code)).toEqual(['f', 'f']);
  });
});
