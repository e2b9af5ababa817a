// The README's and the manual's option tables are written from the config field specs
// (scripts/docs.mjs): these tests regenerate them in memory and fail when a file drifts from the
// specs, when a setting has no documentation, or when the generator would not notice a change.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { drift, loadSpecs, ROOT, regenerate, type Specs, tables } from '../../../scripts/docs.mjs';
import { integer, section } from '../../../src/config/fields.js';
import { PRESETS } from '../../../src/presets.js';

let specs: Specs;
beforeAll(async () => {
  specs = await loadSpecs();
});

const readme = () => readFileSync(join(ROOT, 'README.md'), 'utf8');
const man = () => readFileSync(join(ROOT, 'man', 'cg.1'), 'utf8');

describe('the generated reference tables', () => {
  it('README.md and man/cg.1 are what the field specs give (npm run docs regenerates them)', async () => {
    const drifted = await drift(ROOT, specs);
    expect(Object.keys(drifted)).toEqual([]);
  });

  it('document every setting of every component and config section, with its default', () => {
    const t = tables(specs);
    const undocumented = [...t.components, ...t.config].filter((r) => !r.doc).map((r) => r.key);
    expect(undocumented).toEqual([]);
    const names = specs.components.map(([name]) => name);
    expect(names).toEqual(expect.arrayContaining(['collapse', 'fold', 'skeleton', 'summarize']));
    const row = (key: string) =>
      t.components.find((r) => r.key === key) ?? t.config.find((r) => r.key === key);
    // The defaults shown are the ones the parser applies.
    const collapse = specs.components.find(([n]) => n === 'collapse')![1].defaults;
    expect(row('collapse.max_tokens')?.def).toBe(String(collapse.max_tokens));
    expect(row('summarize.trigger.min_messages')?.def).toBe('8');
    expect(row('store.max_mb')?.def).toBe('512'); // the file's form, not the bytes it converts to
    expect(row('proxy.port')?.def).toBe(String(specs.config.defaults.proxy.port));
  });

  it('notices a changed default or doc string, in both files', () => {
    const changed: Specs = {
      ...specs,
      components: specs.components.map(([name, spec]) =>
        name === 'collapse'
          ? [name, section({ max_tokens: integer().or(2001).doc('changed') })]
          : [name, spec],
      ),
    };
    const r = regenerate('readme', readme(), changed);
    expect(r).not.toBe(readme());
    expect(r).toContain('| `collapse.max_tokens` | 2001 | changed |');
    const m = regenerate('man', man(), changed);
    expect(m).toContain('\\fBcollapse.max_tokens:\\fR 2001\nchanged');
  });

  it('touches nothing outside the markers, and says so when a block is missing', () => {
    const text = 'before\n<!-- generated:config -->\nstale\n<!-- /generated:config -->\nafter\n';
    expect(() => regenerate('readme', text, specs)).toThrow(/generated:components/);
    const both = `${text}<!-- generated:components --><!-- /generated:components -->\nend\n`;
    const out = regenerate('readme', both, specs);
    expect(out.startsWith('before\n<!-- generated:config -->\n| key | default |')).toBe(true);
    expect(out).not.toContain('stale');
    expect(out.endsWith('<!-- /generated:components -->\nend\n')).toBe(true);
    expect(regenerate('readme', out, specs)).toBe(out);
  });

  it("README's preset table lists every preset's components in their order", () => {
    const rows = new Map(
      [...readme().matchAll(/^\| `(\w+)` \| (none|`[^`]*`) \|/gm)].map((m) => [m[1]!, m[2]!]),
    );
    for (const [name, list] of Object.entries(PRESETS))
      expect([name, rows.get(name)]).toEqual([name, list.length ? `\`${list.join(', ')}\`` : 'none']);
  });
});
