import { describe, expect, it } from 'vitest';
import { templateOf } from '../../../src/text/template.js';
import { mineTemplates } from '../../../src/text/templates.js';

describe('templateOf', () => {
  it('masks numbers, hex ids, paths, quoted strings and timestamps, and keeps the words', () => {
    const t = templateOf(
      `2024-05-01T10:00:03.123Z WARN [worker-7] cache miss for 'user:42' at /var/lib/app/x.db id=0x1f3a`,
    );
    expect(t.key).toBe(`<*>:<*>:<*> WARN [<*>] cache miss for '<*>' at <*> id=<*>`);
    expect(t.values).toEqual([
      '2024-05-01T10',
      '00',
      '03.123Z',
      'worker-7',
      'user:42',
      '/var/lib/app/x.db',
      '0x1f3a',
    ]);
  });

  it('gives lines that differ only in their values one template', () => {
    const a = templateOf('src/a.ts(3,7): error TS2304: Cannot find name "foo".');
    const b = templateOf('lib/b/c.ts(120,1): error TS2304: Cannot find name "barBaz".');
    expect(a.key).toBe(b.key);
    expect(templateOf('error: cannot find value `x`').key).not.toBe(
      templateOf('error: unused import `x`').key,
    );
  });

  it('keeps a URL one value and leaves apostrophes inside words alone', () => {
    expect(templateOf('GET https://example.com/a/b ok').key).toBe('GET <*> ok');
    expect(templateOf("don't stop").key).toBe("don't stop");
  });

  it('leaves a line without values as it is', () => {
    expect(templateOf('Resolving dependencies...')).toEqual({ key: 'Resolving dependencies...', values: [] });
  });
});

describe('mineTemplates', () => {
  it('numbers groups in order of first occurrence and tracks values, signals and counts', () => {
    const lines = ['open a1', 'open a2', 'ERROR bad 7', 'open a3', 'ERROR bad 9'];
    const m = mineTemplates(lines, { maxTemplates: 10, trackValues: 10 });
    expect(m.groups.map((g) => [g.key, g.count, g.first, g.firstSignal])).toEqual([
      ['open <*>', 3, 0, -1],
      ['ERROR bad <*>', 2, 2, 2],
    ]);
    expect(m.groups[0]!.slots[0]!.distinct).toEqual(['a1', 'a2', 'a3']);
    expect([...m.groupOf]).toEqual([0, 0, 1, 0, 1]);
    expect([...m.signal]).toEqual([0, 0, 1, 0, 1]);
  });

  it('keeps at most maxTemplates groups and trackValues values per slot', () => {
    const lines = Array.from({ length: 50 }, (_, i) => `kind${String.fromCharCode(97 + (i % 26))}x v${i}`);
    const m = mineTemplates(lines, { maxTemplates: 3, trackValues: 2 });
    expect(m.groups).toHaveLength(3);
    expect([...m.groupOf].filter((g) => g === -1).length).toBe(50 - 6);
    expect(m.groups[0]!.slots[0]!.distinct).toEqual(['v0', 'v26']);
    expect(m.groups[0]!.slots[0]!.overflow).toBe(false);
  });
});
