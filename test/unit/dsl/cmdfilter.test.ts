import { describe, expect, it } from 'vitest';
import { cmdfilter } from '../../../src/components/cmdfilter.js';
import { compactText } from '../../../src/engine.js';
import { markerKeys } from '../../../src/store/marker.js';
import { parseLineRange, sliceOriginal } from '../../../src/store/slice.js';
import { compileYaml, staticSource } from '../../filter-source.js';
import { context, output } from '../../helpers.js';
import { MemoryStore } from '../../memory-store.js';

const filters = staticSource(
  await compileYaml(`schema_version: 1
filters:
  tests:
    match: '^\\$ runtests'
    priority: 10
    head_lines: 30
  lint:
    match: '^\\$ lint'
    strip_lines_matching: ['^ok ']
  other_lint:
    match: '^\\$ lint'
    head_lines: 5
  quiet:
    match: '^\\$ quiet'
    head_lines: 100000
  hits:
    match: '^\\$ hits'
    group_lines:
      - { pattern: '^([^:]+):(\\d+:.*)$', header: '$1 ($<count> hits):', item: '  $2', max_items: 1 }
`),
);

const lines = (n: number, f = (i: number) => `line ${i} of the test run, with some words to count`) =>
  Array.from({ length: n }, (_, i) => `${f(i + 1)}\n`).join('');

async function compact(text: string, command: string, config?: Record<string, unknown>) {
  const store = new MemoryStore();
  const r = await compactText(text, {
    components: 'cmdfilter',
    format: 'text',
    command,
    store,
    filters,
    ...(config ? { config: { components: { cmdfilter: config } } } : {}),
  });
  return { ...r, store };
}

describe('cmdfilter', () => {
  it('cuts a tail with a hint naming the cut, and expand --lines N- gives exactly the dropped lines', async () => {
    const input = lines(500);
    const { output: out, store, events } = await compact(input, 'runtests -v');
    const [key] = markerKeys(out);
    expect(key).toBeDefined();
    expect(out).toBe(
      `${lines(30)}... (470 lines omitted) <<cg:${key}>> [full output: cg expand ${key} --lines 31-]\n`,
    );
    expect(events.find((e) => e.action === 'rewrite')?.loss).toBe('tail');
    const original = store.entries.get(key!)!.toString('utf8');
    expect(original).toBe(input);
    expect(sliceOriginal(original, parseLineRange('31-'))).toBe(input.split('\n').slice(30).join('\n'));
  });

  it('gives any other loss the plain hint', async () => {
    const input = lines(200, (i) => (i % 10 === 0 ? `FAIL case ${i}` : `ok case ${i} passed in 0.01s`));
    const { output: out, store } = await compact(input, 'lint src');
    const [key] = markerKeys(out);
    expect(out).toBe(
      `${lines(20, (i) => `FAIL case ${i * 10}`)}<<cg:${key}>> [full output: cg expand ${key}]\n`,
    );
    expect(store.entries.get(key!)!.toString('utf8')).toBe(input);
  });

  it('leaves an output alone when its filter changes nothing or no filter matches', async () => {
    const input = lines(200);
    for (const command of ['quiet', 'unknown-tool']) {
      const r = await compact(input, command);
      expect(r.changed).toBe(false);
      expect(r.output).toBe(input);
      expect(r.store.entries.size).toBe(0);
    }
  });

  it('skips disabled filters and uses the next match', async () => {
    const input = lines(200, (i) => `ok case ${i} passed in 0.01s with a long enough line`);
    const r = await compact(input, 'lint', { disabled: ['lint'] });
    expect(r.output).toMatch(
      /^(ok case \d+ .*\n){5}\.\.\. \(195 lines omitted\) <<cg:[0-9a-f]{16}>> .*--lines 6-\]\n$/,
    );
  });

  it('leaves outputs under min_tokens alone without asking for a filter', async () => {
    let asked = 0;
    const ctx = context({
      filters: {
        async select() {
          asked++;
          return undefined;
        },
      },
    });
    const cfg = cmdfilter.parseConfig({ min_tokens: 100 });
    const small = output('x'.repeat(130));
    expect(cmdfilter.applies!(small, cfg)).toBe(false);
    expect(await cmdfilter.run(output('y'.repeat(399)), cfg, ctx)).toEqual({
      kind: 'skip',
      gate: 'under min_tokens',
    });
    expect(asked).toBe(0);
    await cmdfilter.run(output('y'.repeat(400)), cfg, ctx);
    expect(asked).toBe(1);
  });

  it('leaves an output of more than max_input_lines lines to the later stages, a final newline not counted', async () => {
    const cfg = cmdfilter.parseConfig({ max_input_lines: 40 });
    const at = await compact(lines(40), 'runtests -v', { max_input_lines: 40 });
    expect(at.changed).toBe(true);
    const over = await cmdfilter.run(
      output(lines(41), { command: 'runtests -v' }),
      cfg,
      context({ filters }),
    );
    expect(over).toEqual({ kind: 'skip', gate: 'over max_input_lines' });
  });

  it('skips when the context has no filters', async () => {
    expect(await cmdfilter.run(output(lines(100)), cmdfilter.defaults, context())).toEqual({
      kind: 'skip',
      gate: 'no filters in this context',
    });
  });

  it('says its rewrite is final when it kept at most max_tokens, grouped or not', async () => {
    // lint strips the "ok" lines: 600 of 1,200 lines, ~28 KB kept of ~50 KB.
    const input = lines(1200, (i) =>
      i % 2 ? `ok ${i} passed, nothing to report here at all` : `warn ${i}: x`,
    );
    const run = (cfg: Record<string, unknown>, text = input, command = 'lint') =>
      cmdfilter.run(output(text, { command }), cmdfilter.parseConfig(cfg), context({ filters }));
    expect(await run({})).toMatchObject({ kind: 'rewrite', final: true });
    const open = await run({ max_tokens: 1000 });
    expect(open.kind).toBe('rewrite');
    expect(open).not.toHaveProperty('final');
    // A tail cut is judged the same way.
    expect(await run({}, lines(500), 'runtests')).toMatchObject({ loss: 'tail', final: true });
    expect(await run({ max_tokens: 10 }, lines(500), 'runtests')).not.toHaveProperty('final');
    // Grouped lines too: over max_tokens the later stages may shorten them (a host would cut them).
    const hits = Array.from({ length: 400 }, (_, i) => `src/f${i >> 1}.ts:${i}:hit ${i}\n`).join('');
    expect(await run({}, hits, 'hits -rn')).toMatchObject({ kind: 'rewrite', final: true });
    expect(await run({ max_tokens: 10 }, hits, 'hits -rn')).not.toHaveProperty('final');
  });

  it('has a strict config', () => {
    expect(cmdfilter.parseConfig({})).toEqual({
      min_tokens: 50,
      disabled: [],
      max_tokens: 8000,
      max_input_lines: 100_000,
      newest_only: false,
    });
    expect(() => cmdfilter.parseConfig({ disabled: 'lint' })).toThrow(/disabled: expected a list of strings/);
    expect(() => cmdfilter.parseConfig({ disabled: ['lint', 3] })).toThrow(
      /^disabled\[1\]: expected a string, got 3$/,
    );
    expect(() => cmdfilter.parseConfig({ min_tokens: -1 })).toThrow(/min_tokens/);
  });

  it('is idempotent: its output run again changes nothing', async () => {
    const first = await compact(lines(500), 'runtests');
    const again = await compact(first.output, 'runtests');
    expect(again.changed).toBe(false);
  });
});
