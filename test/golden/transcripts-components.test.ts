/**
 * Golden outputs of the transcript components on real corpus inputs: each case runs one component
 * alone (through the engine and the pipeline, with a memory store) and compares what it sent with a
 * file under __golden__/transcripts/. A deliberate change is accepted with `vitest -u`.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compactText } from '../../src/engine.js';
import { readTranscript } from '../../src/input/read.js';
import { markerKeys } from '../../src/store/marker.js';
import { createTokens } from '../../src/tokens.js';
import { corpusPath, HAS_CORPUS } from '../helpers.js';
import { MemoryStore } from '../memory-store.js';

const tokens = createTokens('o200k');
const read = (...parts: string[]) => readFileSync(corpusPath(...parts), 'utf8');
const golden = (name: string) => `./__golden__/transcripts/${name}`;

/** Runs one component; checks every marker; returns the rewritten outputs as one text. */
async function rewritten(input: string, components: string, extra: Record<string, unknown> = {}) {
  const store = new MemoryStore();
  const r = await compactText(input, { components, store, tokens, ...extra });
  const before = readTranscript(input, 'auto', {}).outputs;
  const after = readTranscript(r.output, 'auto', {}).outputs;
  const parts: string[] = [];
  for (const [i, o] of after.entries()) {
    if (o.text === before[i]!.text) continue;
    for (const key of markerKeys(o.text))
      expect(store.entries.get(key)?.toString('utf8')).toBe(before[i]!.text);
    expect(await tokens.fewer(o.text, before[i]!.text)).toBe(true);
    parts.push(
      `=== ${o.id}${o.command ? ` $ ${o.command.split('\n')[0]}` : o.toolName ? ` (${o.toolName})` : ''}\n${o.text}`,
    );
  }
  return { text: `${parts.join('\n')}\n`, count: parts.length, output: r.output };
}

function anthropic(...names: string[]) {
  return names.map((n) => read('transcripts', 'anthropic', `${n}.anthropic.json`));
}

/** A body of real command outputs: two runs of one failing `go test`, one of another command. */
function goTestBody(): string {
  const runs: [string, string][] = [
    [
      'go test -v ./testjson/internal/withfails',
      read('commands', 'go_test', 'gotestsum_format_standard-verbose.out'),
    ],
    ['dotnet test', read('commands', 'rtk', 'raw_fixtures_no_expected', 'dotnet_test_failed.input.txt')],
    [
      'go test -v ./testjson/internal/withfails',
      read('commands', 'go_test', 'gotestsum_format_testname.out'),
    ],
  ];
  const messages: unknown[] = [{ role: 'user', content: 'Make the tests pass' }];
  runs.forEach(([command, text], i) => {
    messages.push({
      role: 'assistant',
      content: [{ type: 'tool_use', id: `run${i}`, name: 'Bash', input: { command } }],
    });
    messages.push({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: `run${i}`, content: text }],
    });
  });
  return JSON.stringify({ model: 'claude-sonnet-4', max_tokens: 1024, messages });
}

describe.skipIf(!HAS_CORPUS)('transcript components on real corpus inputs', () => {
  it('dedup replaces the later copy of a repeated tool output (a SWE-agent run that repeated a view)', async () => {
    const r = await rewritten(
      read('transcripts', 'openai', 'sweagent_gpt4_pydicom1458.openai.json'),
      'dedup',
    );
    expect(r.count).toBe(1);
    await expect(r.text).toMatchFileSnapshot(golden('dedup.txt'));
    // The Claude Code sessions repeat no large output byte for byte.
    for (const body of anthropic('spotter_258c7280_opus46_main', 'spotter_ae4a77f8_opus46_main')) {
      expect((await rewritten(body, 'dedup')).count).toBe(0);
    }
  });

  it('failed_run supersedes the earlier failing go test run, not the other command', async () => {
    const r = await rewritten(goTestBody(), 'failed_run');
    expect(r.count).toBe(1);
    await expect(r.text).toMatchFileSnapshot(golden('failed_run.txt'));
  });

  it('mask masks all but the newest outputs of a whole session', async () => {
    const [body] = anthropic('reliability_python_to_rust_port_opus45');
    const r = await rewritten(body!, 'mask');
    expect(r.count).toBeGreaterThan(5);
    await expect(r.text).toMatchFileSnapshot(golden('mask.txt'));
  });

  it('phi_evict evicts by Φ until the session fits a 20 000-token budget', async () => {
    const [body] = anthropic('spotter_subagent_a2898e3_sonnet45');
    const r = await rewritten(body!, 'phi_evict', {
      config: { components: { phi_evict: { budget_tokens: 20_000 } } },
    });
    expect(r.count).toBeGreaterThan(0);
    await expect(r.text).toMatchFileSnapshot(golden('phi_evict.txt'));
  });

  it('extract keeps the lines that matter to the task in a session, and to --query in a log', async () => {
    const [body] = anthropic('spotter_websearch_plan_session');
    const session = await rewritten(body!, 'extract');
    expect(session.count).toBeGreaterThan(0);
    await expect(session.text).toMatchFileSnapshot(golden('extract-session.txt'));
    const log = await rewritten(read('logs', 'loghub', 'HDFS_2k.log'), 'extract', {
      query: 'which datanode served blk_-1608999687919862906',
    });
    await expect(log.text).toMatchFileSnapshot(golden('extract-hdfs.txt'));
  });

  it('smartcrush keeps first, last, error and informative items of real API arrays', async () => {
    const parts: string[] = [];
    for (const file of ['github_repos_top100_flat.json', 'github_issues_list_13.compact.json']) {
      const r = await rewritten(read('json', file), 'smartcrush');
      expect(r.count).toBe(1);
      parts.push(`### ${file}\n${r.text}`);
    }
    await expect(parts.join('')).toMatchFileSnapshot(golden('smartcrush.txt'));
  });

  it('cacheinject adds one breakpoint before the newest turn of each session, every other byte kept', async () => {
    const lines: string[] = [];
    for (const name of [
      'ccviewer_5c0375b4_sonnet4',
      'reliability_coverage_test_fix_opus45',
      'spotter_258c7280_opus46_main',
      'spotter_websearch_plan_session',
    ]) {
      const [input] = anthropic(name);
      const r = await compactText(input!, { components: 'cacheinject', store: null, tokens });
      const at = r.output.indexOf(',"cache_control":{"type":"ephemeral"}');
      expect(r.output.replace(',"cache_control":{"type":"ephemeral"}', '')).toBe(input);
      const messages = JSON.parse(r.output).messages as { role: string; content: unknown }[];
      const marked = messages.findIndex(
        (m) =>
          Array.isArray(m.content) && m.content.some((b) => (b as { cache_control?: unknown }).cache_control),
      );
      lines.push(
        `${name}: ${at < 0 ? 'none' : `message ${marked} of ${messages.length} (${messages[marked]!.role})`}`,
      );
    }
    await expect(`${lines.join('\n')}\n`).toMatchFileSnapshot(golden('cacheinject.txt'));
  });
});
