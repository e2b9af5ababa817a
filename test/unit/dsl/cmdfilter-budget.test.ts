import { describe, expect, it } from 'vitest';
import { compactText } from '../../../src/engine.js';
import { compileYaml, staticSource } from '../../filter-source.js';
import { MemoryStore } from '../../memory-store.js';

const filters = staticSource(
  await compileYaml(`schema_version: 1
filters:
  columns:
    match: '^\\$ columns'
    min_tokens: 2000
    replace: [{ pattern: '^(\\S+) \\S+ \\S+ (\\S+)$', replacement: '$1 $2' }]
  tree:
    match: '^\\$ tree'
    path_tree: { entry: '^(\\S+)$', max_chars: 200000 }
`),
);

async function run(text: string, command: string, components = 'cmdfilter,fold') {
  const store = new MemoryStore();
  return compactText(text, { components, format: 'text', command, store, filters });
}

const rows = (n: number) =>
  Array.from({ length: n }, (_, i) => `-rw-r--r-- root root file-${i}.txt\n`).join('');

describe('cmdfilter budgets', () => {
  it("leaves an output under a filter's min_tokens whole (counted), and fold leaves it too", async () => {
    const small = rows(150);
    const r = await run(small, 'columns -l');
    expect(r.output).toBe(small);
    expect(r.events.find((e) => e.component === 'cmdfilter')?.reason).toBe(
      "under filter columns's min_tokens",
    );
    const large = rows(900);
    const big = await run(large, 'columns -l');
    expect(big.output).toContain('-rw-r--r-- file-0.txt');
  });

  it('a rewrite over max_tokens tries again with its budgets cut, so a path tree is never folded into templates', async () => {
    const paths = [];
    for (let d = 0; d < 900; d++)
      for (let f = 0; f < 3; f++) paths.push(`/srv/data/project-${d}/part-${f}.bin`);
    const r = await run(`${paths.join('\n')}\n`, 'tree');
    const rewrite = r.events.find((e) => e.component === 'cmdfilter');
    expect(rewrite?.action).toBe('rewrite');
    expect(r.events.find((e) => e.component === 'fold')?.action).not.toBe('rewrite');
    expect(r.output).not.toMatch(/^\[×\d+\]/m);
    expect(r.output).toMatch(/^\/srv\/data\/ \(2700 files, 900 dirs\)/);
  });
});
