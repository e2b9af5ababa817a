// cg proxy runs the declarative filters (and the host gate) on the newest turn's outputs: a
// failing pytest and a `git status` in an Anthropic body (Claude Code) and an OpenAI Responses body
// (Codex) come out filtered, the command found from the assistant's tool call; a failing run keeps
// every failure line; the earlier turns stay byte for byte as sent; and a 300 KB log never comes
// out larger than the host's own preview of it would have been.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hasFailureSignal } from '../../src/dsl/failure-lines.js';
import { CLAUDE_LIMIT } from '../../src/hosts/claude/limits.js';
import { CODEX_LIMIT } from '../../src/hosts/codex/limits.js';
import { hostView } from '../../src/hosts/limits.js';
import { createTokens } from '../../src/tokens.js';
import { CORPUS } from '../helpers.js';
import { anthropicStream, type FakeUpstream, startFakeUpstream } from './fake-upstream.js';
import { send, startTestProxy, type TestProxy } from './harness.js';

const tokens = createTokens('o200k');
const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  while (open.length) await open.pop()!.close();
});

/** `pytest -v` of 400 tests, three failing, with their tracebacks and the summary. */
function pytestRun(): string {
  const lines = [
    '============================= test session starts ==============================',
    'platform linux -- Python 3.11.7, pytest-8.3.2, pluggy-1.5.0 -- /usr/bin/python3',
    'rootdir: /home/user/project',
    'collected 400 items',
    '',
  ];
  for (let i = 0; i < 400; i++) {
    const failed = i === 17 || i === 212 || i === 333;
    lines.push(
      `tests/test_mod${String(i % 8).padStart(2, '0')}.py::test_case_${i} ${failed ? 'FAILED' : 'PASSED'} [${String(Math.floor(((i + 1) * 100) / 400)).padStart(3)}%]`,
    );
  }
  lines.push('', '=================================== FAILURES ===================================');
  for (const i of [17, 212, 333]) {
    lines.push(
      `________________________________ test_case_${i} ________________________________`,
      '',
      `    def test_case_${i}():`,
      `>       assert compute(${i}) == ${i + 1}`,
      `E       assert ${i} == ${i + 1}`,
      `E        +  where ${i} = compute(${i})`,
      '',
      `tests/test_mod${String(i % 8).padStart(2, '0')}.py:${i}: AssertionError`,
    );
  }
  lines.push(
    '=========================== short test summary info ============================',
    'FAILED tests/test_mod01.py::test_case_17 - assert 17 == 18',
    'FAILED tests/test_mod04.py::test_case_212 - assert 212 == 213',
    'FAILED tests/test_mod05.py::test_case_333 - assert 333 == 334',
    '======================== 3 failed, 397 passed in 4.21s =========================',
  );
  return `${lines.join('\n')}\n`;
}

function gitStatus(): string {
  const lines = [
    'On branch main',
    "Your branch is up to date with 'origin/main'.",
    '',
    'Changes not staged for commit:',
  ];
  lines.push('  (use "git add <file>..." to update what will be committed)');
  lines.push('  (use "git restore <file>..." to discard changes in working directory)');
  for (let i = 0; i < 120; i++) lines.push(`\tmodified:   src/components/widget_${i}/index.tsx`);
  lines.push('', 'Untracked files:', '  (use "git add <file>..." to include in what will be committed)');
  for (let i = 0; i < 80; i++) lines.push(`\tsrc/generated/schema_${i}.json`);
  lines.push('', 'no changes added to commit (use "git add" and/or "git commit -a")');
  return `${lines.join('\n')}\n`;
}

function bigLog(): string {
  const lines: string[] = [];
  for (let i = 0; i < 4000; i++)
    lines.push(
      i % 997 === 500
        ? `2024-05-01T10:00:00 ERROR worker ${i} crashed: connection reset (app/worker.py:${i})`
        : `2024-05-01T10:00:${String(i % 60).padStart(2, '0')} INFO GET /api/items/${i} 200 ${i % 17}ms trace=${(i * 104729).toString(16)}`,
    );
  lines.push('shutdown complete: 4000 requests, 4 errors');
  return `${lines.join('\n')}\n`;
}

const failureLines = (text: string) => text.split('\n').filter(hasFailureSignal);

async function proxyPair(): Promise<{ up: FakeUpstream; proxy: TestProxy }> {
  const up = await startFakeUpstream(() => anthropicStream({ text: 'ok' }));
  open.push(up);
  const proxy = await startTestProxy({ anthropic: up.url, openai: up.url });
  open.push(proxy);
  return { up, proxy };
}

type Msg = Record<string, unknown>;

/** Claude Code's turns: a task, then per step its Bash call and its result. */
function anthropicBody(steps: { command: string; output: string; error?: boolean }[]): string {
  const messages: Msg[] = [{ role: 'user', content: 'fix the failing tests' }];
  steps.forEach((s, i) => {
    messages.push({
      role: 'assistant',
      content: [
        {
          type: 'tool_use',
          id: `toolu_${i}`,
          name: 'Bash',
          input: { command: s.command, description: 'run' },
        },
      ],
    });
    messages.push({
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: `toolu_${i}`,
          content: s.output,
          ...(s.error ? { is_error: true } : {}),
        },
      ],
    });
  });
  return JSON.stringify({
    model: 'claude-sonnet-4-5',
    max_tokens: 100,
    system: 'You are Claude Code.',
    messages,
  });
}

/** Codex's Responses input: its shell calls with their results as Codex writes them (exit code header). */
function responsesBody(steps: { command: string; output: string; exit: number }[]): string {
  const input: Msg[] = [
    { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'fix the failing tests' }] },
  ];
  steps.forEach((s, i) => {
    input.push({
      type: 'function_call',
      name: 'shell',
      call_id: `call_${i}`,
      arguments: JSON.stringify({ command: ['bash', '-lc', s.command] }),
    });
    input.push({
      type: 'function_call_output',
      call_id: `call_${i}`,
      output: `Exit code: ${s.exit}\nWall time: 1.2 seconds\nOutput:\n${s.output}`,
    });
  });
  return JSON.stringify({ model: 'gpt-5-codex', instructions: 'You are Codex.', input, stream: true });
}

const CLAUDE = {
  'x-api-key': 'k',
  'user-agent': 'claude-cli/2.1.332 (external, cli)',
  'x-claude-code-session-id': 'filters-1',
};
const CODEX = {
  authorization: 'Bearer sk-proj-test',
  originator: 'codex_cli_rs',
  'user-agent': 'codex_cli_rs/0.171.0',
  session_id: 'filters-2',
};

function anthropicResults(body: Buffer): string[] {
  const msgs = (JSON.parse(body.toString('utf8')) as { messages: { content: unknown }[] }).messages;
  return msgs.flatMap((m) =>
    Array.isArray(m.content)
      ? (m.content as Msg[]).filter((b) => b.type === 'tool_result').map((b) => String(b.content))
      : [],
  );
}

function responsesResults(body: Buffer): string[] {
  const input = (JSON.parse(body.toString('utf8')) as { input: Msg[] }).input;
  return input.filter((i) => i.type === 'function_call_output').map((i) => String(i.output));
}

describe('cg proxy filters the newest outputs', () => {
  it('Anthropic (Claude Code): the failing pytest keeps every failure line, git status is filtered, earlier turns stay as sent', async () => {
    const { up, proxy } = await proxyPair();
    const pytest = pytestRun();
    const status = gitStatus();
    const steps = [{ command: 'python -m pytest -v', output: pytest, error: true }];
    await send(proxy.url, '/v1/messages', anthropicBody(steps), CLAUDE);
    const [first] = anthropicResults(up.requests.at(-1)!.body);
    expect(await tokens.count(first!)).toBeLessThan(await tokens.count(pytest));
    for (const l of failureLines(pytest)) expect(first).toContain(l.trimEnd());
    expect(first).toMatch(/<<cg:[0-9a-f]{16}>>/);

    await send(
      proxy.url,
      '/v1/messages',
      anthropicBody([...steps, { command: 'git status', output: status }]),
      CLAUDE,
    );
    const sent = up.requests.at(-1)!.body;
    const [again, second] = anthropicResults(sent);
    expect(again).toBe(first);
    expect(await tokens.count(second!)).toBeLessThan(await tokens.count(status));
    expect(second).toContain('modified');
    // The first turn's messages are the same bytes in the second request.
    // The first turn's messages are the same in the second request (cache_control aside: the
    // breakpoint moves to the newest turn by design).
    const bare = (m: unknown) => JSON.stringify(m, (k, v) => (k === 'cache_control' ? undefined : v));
    const before = JSON.parse(up.requests.at(-2)!.body.toString('utf8')).messages;
    const after = JSON.parse(sent.toString('utf8')).messages;
    expect(bare(after.slice(0, before.length))).toBe(bare(before));
  });

  it('OpenAI Responses (Codex): the shell call names the command through bash -lc, failing run and git status both filtered', async () => {
    const { up, proxy } = await proxyPair();
    const pytest = pytestRun();
    const status = gitStatus();
    const steps = [{ command: 'python -m pytest -v', output: pytest, exit: 1 }];
    await send(proxy.url, '/v1/responses', responsesBody(steps), CODEX);
    const [first] = responsesResults(up.requests.at(-1)!.body);
    expect(await tokens.count(first!)).toBeLessThan((await tokens.count(pytest)) / 2);
    for (const l of failureLines(pytest)) expect(first).toContain(l.trimEnd());
    await send(
      proxy.url,
      '/v1/responses',
      responsesBody([...steps, { command: 'git status', output: status, exit: 0 }]),
      CODEX,
    );
    const [again, second] = responsesResults(up.requests.at(-1)!.body);
    expect(again).toBe(first);
    const whole = `Exit code: 0\nWall time: 1.2 seconds\nOutput:\n${status}`;
    expect(await tokens.count(second!)).toBeLessThan(await tokens.count(whole));
    // Selected by the command inside `bash -lc`, not by a guess from the output's first lines.
    const notes = proxy.compacted
      .at(-1)!
      .events.filter((e) => e.component === 'cmdfilter' && e.action === 'rewrite');
    expect(notes.map((e) => e.note?.split(':')[0])).toEqual(['filter git-status']);
  });

  it('leaves older outputs of a conversation first seen mid-way as they came; only the newest turn is filtered', async () => {
    const { up, proxy } = await proxyPair();
    const status = gitStatus();
    const body = anthropicBody([
      { command: 'git status', output: status },
      { command: 'git status', output: `${status}\n` },
    ]);
    await send(proxy.url, '/v1/messages', body, CLAUDE);
    const [, newest] = anthropicResults(up.requests.at(-1)!.body);
    expect(newest).not.toBe(`${status}\n`);
    const events = proxy.compacted.at(-1)!.events;
    const filtered = events
      .filter((e) => e.component === 'cmdfilter' && e.action === 'rewrite')
      .map((e) => e.output);
    expect(filtered).toEqual(['toolu_1']);
    expect(events.find((e) => e.component === 'cmdfilter' && e.output === 'toolu_0')?.reason).toBe(
      'not an output of the newest turn',
    );
  });

  for (const [name, headers, limit, path] of [
    ['Claude Code', CLAUDE, CLAUDE_LIMIT, '/v1/messages'],
    ['Codex', CODEX, CODEX_LIMIT, '/v1/responses'],
  ] as const) {
    it(`never sends ${name} more of a 300 KB log than its own preview would have shown`, async () => {
      const { up, proxy } = await proxyPair();
      const log = bigLog();
      const body =
        path === '/v1/messages'
          ? anthropicBody([{ command: 'cat big.log', output: log }])
          : responsesBody([{ command: 'cat big.log', output: log, exit: 0 }]);
      await send(proxy.url, path, body, headers);
      const sent = up.requests.at(-1)!.body;
      const [out] = path === '/v1/messages' ? anthropicResults(sent) : responsesResults(sent);
      const original =
        path === '/v1/messages' ? log : `Exit code: 0\nWall time: 1.2 seconds\nOutput:\n${log}`;
      expect(await tokens.count(out!)).toBeLessThanOrEqual(await tokens.count(hostView(limit, original)));
      expect(out).toContain('shutdown complete: 4000 requests, 4 errors');
      const key = /<<cg:([0-9a-f]{16})>>/.exec(out!)![1]!;
      expect(String(await proxy.store.get(key))).toBe(original);
      // Sent again as it was on the next turn.
      const next =
        path === '/v1/messages'
          ? anthropicBody([
              { command: 'cat big.log', output: log },
              { command: 'git status', output: gitStatus() },
            ])
          : responsesBody([
              { command: 'cat big.log', output: log, exit: 0 },
              { command: 'git status', output: gitStatus(), exit: 0 },
            ]);
      await send(proxy.url, path, next, headers);
      const again = up.requests.at(-1)!.body;
      expect((path === '/v1/messages' ? anthropicResults(again) : responsesResults(again))[0]).toBe(out);
    });
  }

  it('keeps every failure line of a large failing run even where they alone pass the host’s preview, and says so', async () => {
    const { up, proxy } = await proxyPair();
    const failures = Array.from(
      { length: 1500 },
      (_, i) => `FAILED tests/test_mod${i % 9}.py::test_case_${i} - assert ${i} == ${i + 1}`,
    );
    const pytest = `${pytestRun().replace('=========================== short test summary info ============================\n', `=========================== short test summary info ============================\n${failures.join('\n')}\n`)}`;
    expect(pytest.length).toBeGreaterThan(30_000);
    await send(
      proxy.url,
      '/v1/messages',
      anthropicBody([{ command: 'python -m pytest -v', output: pytest, error: true }]),
      CLAUDE,
    );
    const [out] = anthropicResults(up.requests.at(-1)!.body);
    for (const l of failureLines(pytest)) expect(out).toContain(l.trimEnd());
    const preview = await tokens.count(hostView(CLAUDE_LIMIT, pytest));
    expect(await tokens.count(out!)).toBeGreaterThan(preview);
    expect(await tokens.count(out!)).toBeLessThan(await tokens.count(pytest));
    const note = proxy.compacted.at(-1)!.events.find((e) => e.component === 'host_cap')?.note ?? '';
    expect(note).toMatch(
      /kept every failure line of a tool error .* over the \d+ tokens the host would have shown/,
    );
  });

  const source = join(CORPUS, 'code', 'python', 'gitpython_commit.py');
  it.skipIf(!existsSync(source))(
    'outlines the newest Read of a long source file, each kept line with its own number',
    async () => {
      const { up, proxy } = await proxyPair();
      const file = readFileSync(source, 'utf8');
      const numbered = file
        .split('\n')
        .map((l, i) => `${String(i + 1).padStart(6)}\u2192${l}`)
        .join('\n');
      const body = JSON.stringify({
        model: 'claude-sonnet-4-5',
        max_tokens: 100,
        system: 'You are Claude Code.',
        messages: [
          { role: 'user', content: 'explain commit.py' },
          {
            role: 'assistant',
            content: [
              {
                type: 'tool_use',
                id: 'toolu_r',
                name: 'Read',
                input: { file_path: '/repo/git/objects/commit.py' },
              },
            ],
          },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_r', content: numbered }] },
        ],
      });
      await send(proxy.url, '/v1/messages', body, CLAUDE);
      const [out] = anthropicResults(up.requests.at(-1)!.body);
      expect(await tokens.count(out!)).toBeLessThan((await tokens.count(numbered)) / 2);
      // Each numbered line of the outline starts as the file's line of that number does.
      const firstWord = (l: string) => /^\s*([A-Za-z_@]\w*)/.exec(l)?.[1];
      const lines = file.split('\n');
      let checked = 0;
      for (const l of out!.split('\n')) {
        const m = /^ *(\d+)\u2192(.*)$/.exec(l);
        if (!m || firstWord(m[2]!) === undefined) continue;
        expect(firstWord(lines[Number(m[1]) - 1]!)).toBe(firstWord(m[2]!));
        checked++;
      }
      expect(checked).toBeGreaterThan(50);
      expect(
        proxy.compacted.at(-1)!.events.some((e) => e.component === 'skeleton' && e.action === 'rewrite'),
      ).toBe(true);
    },
  );
});
