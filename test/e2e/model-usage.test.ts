/**
 * cg's own model calls netted out of the saving, end to end: `extract` with `strategy: code` asks
 * the scripted model server through two doors (a pipe and `cg run`), the server reports usage for
 * one call, omits it for another and refuses a third; then `cg stats --json` is checked against a
 * recount made here — the usage the server sent, the requests it recorded counted with
 * gpt-tokenizer where it sent none, the outputs as printed, and the ledger lines parsed in full.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StatsReport } from '../../src/stats/report.js';
import { tempDir } from '../helpers.js';
import { type ModelServer, openaiReply, type RecordedRequest, startModelServer } from '../llm-server.js';
import { cgAsync } from './run-cg.js';

const FILTER =
  "```js\nfunction filter(text, query) {\n  return text.split('\\n').filter((l) => re_match('FAILED', l)).join('\\n');\n}\n```";
const NOT_A_PROGRAM = 'I would keep the failures.';
const REPORTED = {
  prompt_tokens: 2345,
  completion_tokens: 61,
  prompt_tokens_details: { cached_tokens: 1024 },
};

type Chat = { messages: { role: string; content: string }[] };
const userPrompt = (r: RecordedRequest) => (r.body as Chat).messages.find((m) => m.role === 'user')!.content;

let server: ModelServer;
beforeAll(async () => {
  server = await startModelServer((req) => {
    const prompt = userPrompt(req);
    if (prompt.includes('Command: refuse'))
      return { status: 500, body: { error: { message: 'overloaded' } } };
    if (prompt.includes('no-usage.log')) return openaiReply(NOT_A_PROGRAM, null);
    return openaiReply(FILTER, REPORTED);
  });
});
afterAll(() => server.close());

const log = (name: string) =>
  `${Array.from({ length: 300 }, (_, i) => `tests/${name}_${i}.py::test_${i} PASSED`).join('\n')}\ntests/${name}_x.py::test_dates FAILED\n`;

describe("cg's own model calls, netted out", () => {
  it('stats recounts what every call cost, reported or counted, and nets it out of the saving', async () => {
    const root = tempDir('cg-model-usage-');
    const store = join(root, 'store');
    const config = join(root, 'cg.yaml');
    writeFileSync(config, 'components:\n  extract: { strategy: code, min_output_tokens: 500 }\n');
    const noUsage = join(root, 'no-usage.log');
    writeFileSync(noUsage, log('b'));
    const env = {
      CG_MODEL: 'cheap',
      CG_MODEL_API: 'openai',
      CG_MODEL_BASE_URL: server.openaiBaseUrl,
      CG_MODEL_API_KEY: 'sk-e2e-usage',
    };
    const stderr: string[] = [];
    const ask = async (args: string[], input = '', extra: Record<string, string> = {}) => {
      const r = await cgAsync(args, { input, env: { ...env, ...extra }, storeDir: store });
      expect(r.code).toBe(0);
      stderr.push(r.stderr);
      return r.out;
    };
    const inputs = [log('a'), log('b'), log('c')];
    const outputs = [
      // The pipe: the server reports usage, and the model's filter is kept.
      await ask(['-c', 'extract', '--config', config, '--command', 'pytest', '--verbose'], inputs[0]),
      // `cg run` under Claude Code: no usage reported, and no program either (the fallback cuts).
      await ask(['run', '-c', 'extract', '--config', config, '--', 'cat', noUsage], '', {
        CG_HOST: 'claude-code',
      }),
      // The server refuses (500, then 500 on the retry): nothing was paid for.
      await ask(['-c', 'extract', '--config', config, '--command', 'refuse'], inputs[2]),
    ];
    expect(outputs[0]).toMatch(/^tests\/a_x\.py::test_dates FAILED\n\[model filter \(openai:cheap\)/);
    expect(outputs[1]).toMatch(/\[kept \d+ of 301 lines\] <<cg:/);
    expect(outputs[2]).toMatch(/\[kept \d+ of 301 lines\] <<cg:/);
    expect(server.requests).toHaveLength(4);
    // --verbose says what the decision's model call cost.
    expect(stderr[0]).toMatch(/\[extract\] stdin: rewrote .* · model: 1 call, 2345 in \+ 61 out tokens\n/);

    const stats = await cgAsync(['stats', '--json'], { storeDir: store });
    expect(stats.code).toBe(0);
    const r = JSON.parse(stats.out) as StatsReport;

    // The recount: what the server said, and where it said nothing, its request and reply counted.
    const unreported = server.requests.find((q) => userPrompt(q).includes('no-usage.log'))!;
    const { messages } = unreported.body as Chat;
    const countedIn = messages.reduce((n, m) => n + countTokens(m.content), 0);
    const countedOut = countTokens(NOT_A_PROGRAM);
    expect(r.model).toEqual({
      calls: 2,
      tokensIn: REPORTED.prompt_tokens + countedIn,
      tokensOut: REPORTED.completion_tokens + countedOut,
      tokens: REPORTED.prompt_tokens + countedIn + REPORTED.completion_tokens + countedOut,
      cacheRead: 1024,
      cacheWrite: 0,
      estimatedCalls: 1,
    });
    expect(r.components.find((c) => c.component === 'extract')).toMatchObject({
      rewrites: 3,
      modelCalls: 2,
      modelTokensIn: r.model.tokensIn,
      modelTokensOut: r.model.tokensOut,
    });

    // The saving, from the outputs as printed, and the net with cg's model subtracted.
    const tin = inputs.reduce((n, t) => n + countTokens(t), 0);
    const tout = outputs.reduce((n, t) => n + countTokens(t), 0);
    expect(r.tokens).toMatchObject({
      in: tin,
      out: tout,
      saved: tin - tout,
      returned: 0,
      model: r.model.tokens,
    });
    expect(r.tokens.net).toBe(tin - tout - r.model.tokens);
    expect(r.capped.net).toBe(r.capped.saved - r.model.tokens);
    expect(r.capped.measuredAgainst).toMatch(/ · net of cg's own model calls$/);

    // The ledger, parsed in full: the ev lines carry exactly those figures.
    const state = `${store}.state`;
    const ledger = readdirSync(state)
      .filter((n) => n.endsWith('.jsonl'))
      .flatMap((n) => readFileSync(join(state, n), 'utf8').split('\n'))
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, number | string | undefined>);
    const sum = (f: string) => ledger.reduce((n, l) => n + (l.e === 'ev' ? Number(l[f] ?? 0) : 0), 0);
    expect([sum('mc'), sum('mi'), sum('mo'), sum('mr'), sum('me')]).toEqual([
      2,
      r.model.tokensIn,
      r.model.tokensOut,
      1024,
      1,
    ]);

    const text = await cgAsync(['stats'], { storeDir: store });
    const lines = text.out.split('\n');
    expect(lines[1]).toBe(r.capped.measuredAgainst);
    expect(text.out).toMatch(/\n {2}cg's model +[\d,]+ +[\d,]+ +2 calls, 1 ≈ counted by cg\n {2}net saved /);
    expect(text.out).toContain(`  model calls ${r.model.tokensIn.toLocaleString('en-US')} in`);
  });
});
