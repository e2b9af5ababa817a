import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type CompactOptions, compactText } from '../../../src/engine.js';
import type { PipelineEvent } from '../../../src/pipeline/run.js';
import { markerKeys } from '../../../src/store/marker.js';
import { createTokens } from '../../../src/tokens.js';
import { type ModelServer, type Script, startModelServer, textReply } from '../../llm-server.js';
import { MemoryStore } from '../../memory-store.js';

const tokens = createTokens('o200k');
const KEY = 'sk-extract-test-9876543210';

/** A pytest-like log: 400 passing lines and two failures with their tracebacks. */
const LOG = [
  '============================= test session starts ==============================',
  ...Array.from({ length: 200 }, (_, i) => `tests/test_mod${i % 17}.py::test_case_${i} PASSED [${i % 100}%]`),
  'tests/test_parse.py::test_parse_dates FAILED',
  'E       AssertionError: expected 2024-01-02, got 2024-01-01',
  ...Array.from(
    { length: 200 },
    (_, i) => `tests/test_more${i % 13}.py::test_other_${i} PASSED [${i % 100}%]`,
  ),
  'tests/test_io.py::test_roundtrip FAILED',
  'E       ValueError: bad header',
  '========================= 2 failed, 400 passed in 3.21s =========================',
  '',
].join('\n');

const program = (body: string) =>
  `Here is the filter:\n\`\`\`javascript\nfunction filter(text, query) {\n${body}\n}\n\`\`\``;
const KEEP_FAILURES = program(
  "  return text.split('\\n').filter((l) => re_match('FAILED|^E |failed', l)).join('\\n') + '\\n';",
);

let server: ModelServer;
let script: Script = textReply(KEEP_FAILURES);
let dirs: string[] = [];

beforeAll(async () => {
  server = await startModelServer((req, i) => script(req, i));
});
afterAll(() => server.close());
afterEach(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs = [];
  server.requests.length = 0;
  script = textReply(KEEP_FAILURES);
});

function options(extract: Record<string, unknown> = {}, extra: Partial<CompactOptions> = {}): CompactOptions {
  return {
    store: new MemoryStore(),
    tokens,
    components: 'extract',
    command: 'pytest',
    query: 'why does test_parse_dates fail',
    config: {
      components: { extract: { strategy: 'code', min_output_tokens: 1000, ...extract } },
      model: { source: 'config', model: 'cheap-1', api: 'anthropic', base_url: server.anthropicBaseUrl },
    },
    env: { CG_MODEL_API_KEY: KEY },
    ...extra,
  };
}

/** What the deterministic strategy alone makes of the same input. */
async function deterministic(): Promise<string> {
  return (await compactText(LOG, { ...options(), config: { components: { extract: {} } } })).output;
}

describe('extract, strategy code', () => {
  it('keeps what a correct model-written filter keeps, with a marker back to the whole output', async () => {
    const store = new MemoryStore();
    const r = await compactText(LOG, { ...options(), store });
    expect(server.requests).toHaveLength(1);
    const lines = r.output.split('\n');
    expect(lines.slice(0, 5)).toEqual([
      'tests/test_parse.py::test_parse_dates FAILED',
      'E       AssertionError: expected 2024-01-02, got 2024-01-01',
      'tests/test_io.py::test_roundtrip FAILED',
      'E       ValueError: bad header',
      '========================= 2 failed, 400 passed in 3.21s =========================',
    ]);
    expect(lines[5]).toMatch(
      /^\[model filter \(anthropic:cheap-1\) kept \d+ of \d+ characters\] <<cg:[0-9a-f]{16}>>/,
    );
    const [key] = markerKeys(r.output);
    expect(store.entries.get(key!)?.toString('utf8')).toBe(LOG);
    const prompt = (server.requests[0]!.body as { messages: { content: string }[] }).messages[0]!.content;
    expect(prompt).toContain('Query (what the agent is working on): why does test_parse_dates fail');
    expect(prompt).toContain('Command: pytest');
  });

  it('treats strategy rlm as code for now', async () => {
    const r = await compactText(LOG, options({ strategy: 'rlm' }));
    expect(server.requests).toHaveLength(1);
    expect(r.output.startsWith('tests/test_parse.py::test_parse_dates FAILED\n')).toBe(true);
  });

  it('rejects a filter that fabricates text and falls back to the deterministic strategy', async () => {
    script = textReply(program("  return 'All tests passed.\\n';"));
    const events: PipelineEvent[] = [];
    const r = await compactText(LOG, { ...options(), onEvent: (e) => events.push(e) });
    expect(r.output).toBe(await deterministic());
    expect(events.find((e) => e.action === 'rewrite')?.note).toMatch(/not a subsequence/);
  });

  it('accepts free rewording only with rewrite: true, and then only when it is shorter', async () => {
    script = textReply(
      program("  return 'Two tests failed: test_parse_dates (dates off by one) and test_roundtrip.\\n';"),
    );
    const r = await compactText(LOG, options({ rewrite: true }));
    expect(r.output.startsWith('Two tests failed: test_parse_dates')).toBe(true);
  });

  it.each([
    ['an infinite loop', '  for (;;) {}'],
    ['a memory bomb', "  const a = []; for (;;) a.push('x'.repeat(1e6) + a.length);"],
    ['deep recursion', '  const f = (n) => f(n + 1) + 1; return f(0);'],
    ['a throwing program', "  throw new Error('boom');"],
  ])('stops %s, falls back, and stays healthy for the next output', async (_name, body) => {
    script = textReply(program(body));
    const events: PipelineEvent[] = [];
    const bad = await compactText(LOG, {
      ...options({ program_timeout_ms: 500 }),
      onEvent: (e) => events.push(e),
    });
    expect(bad.output).toBe(await deterministic());
    expect(events.find((e) => e.action === 'rewrite')?.note).toMatch(/model strategy not used: program/);
    script = textReply(KEEP_FAILURES);
    const good = await compactText(LOG, options());
    expect(good.output.startsWith('tests/test_parse.py::test_parse_dates FAILED\n')).toBe(true);
  });

  it.each([
    ['times out', { delayMs: 3000 }, /timed out/],
    ['answers 500 twice', { status: 500 }, /HTTP 500/],
    ['returns garbage', { raw: '<html>oops</html>' }, /not JSON/],
  ])('falls back when the server %s', async (_name, reply, why) => {
    script = () => reply;
    const events: PipelineEvent[] = [];
    const opts = options({}, { onEvent: (e) => events.push(e) });
    (opts.config as { model: Record<string, unknown> }).model.timeout_ms = 1000;
    const r = await compactText(LOG, opts);
    expect(r.output).toBe(await deterministic());
    expect(events.find((e) => e.action === 'rewrite')?.note).toMatch(why);
  });

  it('does not call anything without a key, and falls back', async () => {
    const r = await compactText(LOG, { ...options(), env: {} });
    expect(server.requests).toHaveLength(0);
    expect(r.output).toBe(await deterministic());
  });

  it('calls the model only for a large output in a large request', async () => {
    await compactText(LOG, options({ min_output_tokens: 100_000 }));
    expect(server.requests).toHaveLength(0);
    const body = JSON.stringify({
      model: 'claude-x',
      messages: [
        { role: 'user', content: 'Fix test_parse_dates' },
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'pytest' } }],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: LOG }] },
      ],
    });
    await compactText(body, { ...options(), format: 'auto' });
    expect(server.requests).toHaveLength(0); // 3 messages < min_messages 4
    await compactText(body, options({ min_messages: 3, min_request_tokens: 1000 }));
    expect(server.requests).toHaveLength(1);
  });

  it('asks only about the newest turn, and about its parallel tool results together', async () => {
    let inFlight = 0;
    let most = 0;
    script = async (req, i) => {
      inFlight++;
      most = Math.max(most, inFlight);
      await new Promise((r) => setTimeout(r, 200));
      inFlight--;
      return textReply(KEEP_FAILURES)(req, i);
    };
    const call = (id: string) => ({ type: 'tool_use', id, name: 'Bash', input: { command: 'pytest' } });
    const result = (id: string, n: number) => ({
      type: 'tool_result',
      tool_use_id: id,
      content: LOG.replace('3.21s', `${n}.0s`),
    });
    const body = JSON.stringify({
      model: 'claude-x',
      messages: [
        { role: 'user', content: 'Fix test_parse_dates' },
        { role: 'assistant', content: [call('old')] },
        { role: 'user', content: [result('old', 1)] },
        { role: 'assistant', content: [call('a'), call('b'), call('c')] },
        { role: 'user', content: [result('a', 2), result('b', 3), result('c', 4)] },
      ],
    });
    const events: PipelineEvent[] = [];
    await compactText(body, {
      ...options({ min_messages: 1, min_request_tokens: 0 }),
      onEvent: (e) => events.push(e),
    });
    expect(server.requests).toHaveLength(3);
    expect(most).toBeGreaterThan(1);
    const notes = Object.fromEntries(
      events.filter((e) => e.action === 'rewrite').map((e) => [e.output, e.note]),
    );
    expect(notes.old).toMatch(/not an output of the newest turn/);
    for (const id of ['a', 'b', 'c']) expect(notes[id]).toMatch(/^model filter/);
  });

  it('serves the same output on a later turn from the session memo, byte for byte, with no request', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cg-xc-'));
    dirs.push(dir);
    const turn = (ids: string[]) => {
      const messages: unknown[] = [{ role: 'user', content: 'Fix test_parse_dates' }];
      for (const id of ids) {
        messages.push({
          role: 'assistant',
          content: [{ type: 'tool_use', id, name: 'Bash', input: { command: 'pytest' } }],
        });
        messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: LOG }] });
      }
      return JSON.stringify({ model: 'claude-x', messages });
    };
    const opts = options({ min_messages: 1, min_request_tokens: 0 }, { session: { dir }, query: undefined });
    delete opts.query;
    const first = await compactText(turn(['t1']), opts);
    expect(server.requests).toHaveLength(1);
    const second = await compactText(turn(['t1', 't2']), opts);
    expect(server.requests).toHaveLength(1);
    const results = (s: string) =>
      (JSON.parse(s).messages as { content: { content?: string }[] }[])
        .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
        .map((b) => b.content)
        .filter((c): c is string => typeof c === 'string');
    const [a] = results(first.output);
    expect(results(second.output)).toEqual([a, a]);
  });
});

describe('extract, strategy code, on raw text', () => {
  it('remembers a model result for the same text across runs, and pins nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cg-xt-'));
    try {
      const opts = options({}, { session: { dir } });
      const first = await compactText(LOG, opts);
      const second = await compactText(LOG, opts);
      expect(server.requests).toHaveLength(1);
      expect(second.output).toBe(first.output);
      expect(second.session).toBeUndefined();
      // Another config on the same text is decided afresh, not handed the first run's bytes.
      const plain = await compactText(LOG, { ...opts, config: { components: { extract: {} } } });
      expect(plain.output).toBe(await deterministic());
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
