/**
 * The contract every registered component keeps, run through the real pipeline: deterministic,
 * idempotent, quiet on empty and non-rewritable input, never worse, strict config, and every
 * marker expanding to the exact original.
 */
import { describe, expect, it } from 'vitest';
import type { ToolOutput } from '../../../src/component.js';
import { COMPONENTS } from '../../../src/components/index.js';
import type { Transcript } from '../../../src/input/transcript.js';
import { runPipeline } from '../../../src/pipeline/run.js';
import { markerKeys } from '../../../src/store/marker.js';
import { createTokens } from '../../../src/tokens.js';
import { compileYaml, staticSource } from '../../filter-source.js';
import { MemoryStore } from '../../memory-store.js';

const tokens = createTokens('o200k');
// A filter that matches every output, so cmdfilter is exercised: tail cuts, long-line cuts, both.
const filters = staticSource(
  await compileYaml(`schema_version: 1
filters:
  contract:
    match: ''
    strip_lines_matching: ['^\\s*$']
    truncate_lines_at: 300
    head_lines: 40
`),
);
const rows = Array.from({ length: 60 }, (_, i) => ({
  id: i,
  name: `item-${i}`,
  ok: i % 7 !== 0,
  score: i * 1.5,
}));
const SAMPLES: Record<string, string> = {
  empty: '',
  small: 'hello world\n',
  seq: Array.from({ length: 20_000 }, (_, i) => `${i + 1}`).join('\n'),
  prettyJson: JSON.stringify({ rows, meta: { total: 60, next: null } }, null, 2),
  uniformArray: JSON.stringify(rows, null, 2),
  logWithJson: `starting\n${JSON.stringify({ config: { a: 1, b: [1, 2, 3] } }, null, 4)}\ndone\n`,
  longLine: `${'x'.repeat(30_000)}\n`,
  unicode: Array.from({ length: 3000 }, (_, i) => `ligne ${i} — café ☕ 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 ${i}`).join('\n'),
};

function transcriptOf(text: string, extra: Partial<ToolOutput> = {}): Transcript {
  const output: ToolOutput = { id: 'o', text, rewritable: true, isError: false, messageIndex: 0, ...extra };
  return { format: 'text', outputs: [output], messages: [], write: (rw) => rw.get('o') ?? text };
}

async function once(
  component: (typeof COMPONENTS)[number],
  text: string,
  store = new MemoryStore(),
  extra: Partial<ToolOutput> = {},
) {
  const t = transcriptOf(text, extra);
  const r = await runPipeline(t, {
    stages: [{ component, config: component.defaults }],
    store,
    tokens,
    filters,
  });
  return { out: t.write(r.rewrites), changed: r.rewrites.size > 0, events: r.events, store };
}

describe.each(COMPONENTS.map((c) => [c.name, c] as const))('component %s', (_name, component) => {
  it('has a strict config: defaults parse to themselves and unknown keys are refused', () => {
    expect(component.parseConfig({})).toEqual(component.defaults);
    expect(() => component.parseConfig({ surely_not_a_key: 1 })).toThrow(/surely_not_a_key: unknown key/);
  });

  for (const [sample, text] of Object.entries(SAMPLES)) {
    it(`is deterministic, idempotent, never worse and reversible on ${sample}`, async () => {
      const a = await once(component, text);
      const b = await once(component, text);
      expect(b.out).toBe(a.out);
      for (const e of a.events) expect(e.action).not.toBe('fail');
      if (a.changed) {
        expect(await tokens.fewer(a.out, text)).toBe(true);
        const again = await once(component, a.out, a.store);
        expect(again.out).toBe(a.out);
      } else {
        expect(a.out).toBe(text);
      }
      const keys = markerKeys(a.out);
      if (!component.lossy) expect(keys).toEqual([]);
      for (const key of keys) expect(a.store.entries.get(key)?.toString('utf8')).toBe(text);
    });
  }

  it('leaves empty, error and non-rewritable outputs alone', async () => {
    expect((await once(component, '')).changed).toBe(false);
    expect((await once(component, SAMPLES.prettyJson!, new MemoryStore(), { isError: true })).changed).toBe(
      false,
    );
    expect((await once(component, SAMPLES.seq!, new MemoryStore(), { rewritable: false })).changed).toBe(
      false,
    );
  });
});

/**
 * Transcript-scope components see every output at once, so one output says little about them: here
 * each runs over a transcript of the samples above (with a repeated output, two runs of one failing
 * command, an error and verbatim content among them), with a config small enough for it to act.
 */
const PYTEST_FAIL = `============================= test session starts ==============================\n${Array.from(
  { length: 80 },
  (_, i) => `tests/test_mod.py::test_case_${i} ${i % 9 === 0 ? 'FAILED' : 'PASSED'}`,
).join(
  '\n',
)}\n=========================== short test summary info ============================\nFAILED tests/test_mod.py::test_case_0 - assert 1 == 2\n======================== 9 failed, 71 passed in 0.52s =========================\n`;
const TRANSCRIPT_CONFIG: Record<string, unknown> = { phi_evict: { budget_tokens: 2000 } };

interface Entry {
  text: string;
  extra?: Partial<ToolOutput>;
}

function multi(entries: readonly Entry[]): Transcript {
  const outputs = entries.map(
    (e, i): ToolOutput => ({
      id: `o${i}`,
      text: e.text,
      rewritable: true,
      isError: false,
      messageIndex: 2 * i + 1,
      ...e.extra,
    }),
  );
  const messages = entries.flatMap((e) => [
    { role: 'assistant', text: '[tool_use Bash]' },
    { role: 'user', text: e.text },
  ]);
  return {
    format: 'anthropic',
    outputs,
    messages,
    write: (rw) => JSON.stringify(outputs.map((o) => rw.get(o.id) ?? o.text)),
  };
}

const ENTRIES: Entry[] = [
  { text: PYTEST_FAIL, extra: { command: 'pytest -q', toolName: 'Bash' } },
  ...Object.values(SAMPLES).map((text) => ({ text })),
  { text: SAMPLES.seq! },
  { text: SAMPLES.unicode!, extra: { isError: true } },
  { text: SAMPLES.prettyJson!, extra: { rewritable: false } },
  {
    text: PYTEST_FAIL.replace('9 failed, 71 passed', '8 failed, 72 passed'),
    extra: { command: 'pytest -q' },
  },
  { text: 'the newest output\n'.repeat(200) },
];

const TRANSCRIPT_COMPONENTS = COMPONENTS.filter((c) => c.scope === 'transcript');

describe.each(TRANSCRIPT_COMPONENTS.map((c) => [c.name, c] as const))(
  'transcript component %s over many outputs',
  (name, component) => {
    const config = component.parseConfig(TRANSCRIPT_CONFIG[name] ?? {});
    const pass = async (entries: readonly Entry[], store: MemoryStore) => {
      const t = multi(entries);
      const r = await runPipeline(t, { stages: [{ component, config }], store, tokens });
      return { t, r, texts: t.outputs.map((o) => r.rewrites.get(o.id) ?? o.text) };
    };

    it('is deterministic, idempotent, never worse per output, and every marker expands to its own original', async () => {
      const store = new MemoryStore();
      const a = await pass(ENTRIES, store);
      const b = await pass(ENTRIES, new MemoryStore());
      expect(b.texts).toEqual(a.texts);
      // The transcript is built so that every lossy one has something to do; summarize needs a model
      // (none here: it must then do nothing) and is tested against a model server in its own file.
      if (component.lossy && name !== 'summarize') expect(a.r.rewrites.size).toBeGreaterThan(0);
      for (const e of a.r.events) expect(e.action).not.toBe('fail');
      a.texts.forEach((text, i) => {
        const original = ENTRIES[i]!.text;
        if (text === original) return;
        const extra = ENTRIES[i]!.extra;
        expect(extra?.isError || extra?.rewritable === false).toBeFalsy();
        const keys = markerKeys(text);
        if (!component.lossy) expect(keys).toEqual([]);
        for (const key of keys) expect(store.entries.get(key)?.toString('utf8')).toBe(original);
      });
      for (const [i, text] of a.texts.entries()) {
        if (text !== ENTRIES[i]!.text) expect(await tokens.fewer(text, ENTRIES[i]!.text)).toBe(true);
      }
      const again = await pass(
        a.texts.map((text, i) => ({ text, ...(ENTRIES[i]!.extra ? { extra: ENTRIES[i]!.extra } : {}) })),
        store,
      );
      expect(again.texts).toEqual(a.texts);
      expect(a.texts[a.texts.length - 1]).toBe(ENTRIES[ENTRIES.length - 1]!.text);
    });

    it('does nothing on an empty transcript', async () => {
      const r = await runPipeline(multi([]), {
        stages: [{ component, config }],
        store: new MemoryStore(),
        tokens,
      });
      expect(r.rewrites.size).toBe(0);
    });
  },
);
