import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compactText } from '../../src/engine.js';
import { PRESETS } from '../../src/presets.js';
import { createTokens } from '../../src/tokens.js';
import { corpusPath, HAS_CORPUS } from '../helpers.js';
import { MemoryStore } from '../memory-store.js';

const tokens = createTokens('o200k');
const table = JSON.stringify(
  [
    { id: 1, name: 'alpha', stars: 10, archived: false },
    { id: 2, name: 'beta', stars: 7, archived: false },
    { id: 3, name: 'gamma', stars: 3, archived: true },
    { id: 4, name: 'delta', stars: 1, archived: false },
  ],
  null,
  2,
);

async function run(text: string, preset: string) {
  return compactText(text, { preset, store: new MemoryStore(), tokens, format: 'text' });
}

describe('presets', () => {
  it('run toon before format wherever smartcrush does not come between, so a large table never has a compact copy beside its TOON', () => {
    for (const [name, list] of Object.entries(PRESETS)) {
      const at = (c: string) => (list as readonly string[]).indexOf(c);
      if (at('toon') === -1 || at('format') === -1) continue;
      if (at('smartcrush') !== -1 && at('smartcrush') < at('toon')) continue; // mcp, aggressive: after it
      expect(at('toon'), name).toBeLessThan(at('format'));
    }
  });

  it('run toon in every preset that handles JSON, so a small table becomes TOON', async () => {
    for (const preset of ['safe', 'balanced', 'aggressive', 'coding', 'mcp', 'agent', 'shell']) {
      expect(PRESETS[preset as keyof typeof PRESETS], preset).toContain('toon');
      const r = await run(table, preset);
      expect(
        r.events.some((e) => e.component === 'toon' && e.action === 'rewrite'),
        preset,
      ).toBe(true);
      expect(r.output).toMatch(/^\[4\]\{id,name,stars,archived\}:/);
    }
  });

  it('outline in shell a source file a command printed only from 2,000 tokens on, never templating it', async () => {
    const fn = (i: number) =>
      [
        `export function handler${i}(input: Request${i}): Response${i} {`,
        `  const parsed = parse${i}(input.body, { strict: true, limit: ${i * 10} });`,
        `  if (!parsed.ok) throw new Error('bad request ${i}: ' + parsed.reason);`,
        `  return respond${i}(parsed.value, input.headers);`,
        '}',
        '',
      ].join('\n');
    const code = (n: number) => Array.from({ length: n }, (_, i) => fn(i)).join('\n');
    const shell = (text: string) =>
      compactText(text, {
        preset: 'shell',
        store: new MemoryStore(),
        tokens,
        format: 'text',
        command: 'cat src/api.ts',
      });
    const long = await shell(code(150));
    expect(long.events.find((e) => e.action === 'rewrite')?.component).toBe('skeleton');
    for (let i = 0; i < 150; i++) expect(long.output).toContain(`export function handler${i}(`);
    expect(long.output).not.toMatch(/^\[×\d+\]/m);
    const short = await shell(code(8));
    expect(short.changed).toBe(false);
  });

  it.skipIf(!HAS_CORPUS)(
    'make the shell preset smaller with toon on a uniform table of 100 repositories',
    async () => {
      const text = readFileSync(corpusPath('json', 'github_repos_top100_flat.json'), 'utf8');
      const withToon = await run(text, 'shell');
      const without = await compactText(text, {
        components: PRESETS.shell.filter((c) => c !== 'toon').join(','),
        store: new MemoryStore(),
        tokens,
        format: 'text',
      });
      expect(await tokens.count(withToon.output)).toBeLessThan(await tokens.count(without.output));
    },
  );
});
