import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers.js';
import { BIN, seq } from './run-cg.js';

type TextResult = { content: { type: string; text: string }[]; isError?: boolean };
const textOf = (r: TextResult) => r.content.map((c) => c.text).join('');

/** `cg mcp` as a child process, with its home, config, store and state inside dir. */
function serverIn(dir: string, env: Record<string, string> = {}): StdioClientTransport {
  return new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp'],
    env: {
      PATH: process.env.PATH ?? '',
      HOME: dir,
      XDG_CONFIG_HOME: join(dir, 'config'),
      CG_STORE_DIR: join(dir, 'store'),
      CG_STATE_DIR: join(dir, 'state'),
      ...env,
    },
    stderr: 'pipe',
  });
}

describe('cg mcp, driven by the SDK client over stdio', () => {
  const dir = tempDir('cg-mcp-');
  const client = new Client({ name: 'cg-test', version: '0' });
  const call = async (name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args })) as TextResult;

  beforeAll(async () => {
    await client.connect(serverIn(dir, { CG_SESSION: 'mcp-test-session' }));
  });

  afterAll(async () => {
    await client.close();
  });

  it('lists the three tools with short descriptions', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['cg_compress', 'cg_expand', 'cg_stats']);
    for (const t of tools) expect(t.description!.length).toBeLessThan(120);
    expect(JSON.stringify(tools).length).toBeLessThan(1200);
  });

  let marker = '';

  it('compresses a large output into a marker whose hint names cg_expand', async () => {
    const r = await call('cg_compress', { content: seq(100_000), hint: 'log' });
    expect(r.isError).toBeFalsy();
    const out = textOf(r);
    expect(out.length).toBeLessThan(2000);
    const m = /<<cg:([0-9a-f]{16})>> \[full output: cg_expand key=([0-9a-f]{16})\]/.exec(out);
    expect(m).not.toBeNull();
    expect(m![2]).toBe(m![1]);
    marker = `<<cg:${m![1]}>>`;
  });

  it('expands the marker back to the exact bytes, or a slice of them', async () => {
    expect(textOf(await call('cg_expand', { key: marker }))).toBe(seq(100_000));
    expect(textOf(await call('cg_expand', { key: marker, lines: '99999-' }))).toBe('99999\n100000\n');
    expect(textOf(await call('cg_expand', { key: marker, grep: '^4242$' }))).toBe('4242:4242\n');
  });

  it('reads the session savings, from cg_stats and from cg_compress {cmd: "stats"}', async () => {
    const stats = textOf(await call('cg_stats', {}));
    expect(stats).toMatch(
      /^session mcp-test-session: 1 outputs compressed, [\d,]+ → [\d,]+ tokens, saved [\d,]+/,
    );
    expect(stats).toMatch(/expanded 3 of 3 requests/);
    expect(textOf(await call('cg_compress', { cmd: 'stats' }))).toBe(stats);
  });

  it('answers bad calls with a tool error the model can read', async () => {
    const missing = await call('cg_expand', { key: '0123456789abcdef' });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toMatch(/not in the store/);
    expect((await call('cg_expand', { key: marker, lines: 'x' })).isError).toBe(true);
    expect((await call('cg_compress', { content: 'x', hint: 'poetry' })).isError).toBe(true);
    expect((await call('cg_compress', {})).isError).toBe(true);
  });

  it('passes small content through unchanged', async () => {
    expect(textOf(await call('cg_compress', { content: 'hello\n' }))).toBe('hello\n');
  });

  it('answers a grep that would backtrack for ever in JavaScript at once, and keeps serving calls', async () => {
    const evil = `${'a'.repeat(36)}b`;
    const content = `${`${evil}\n`.repeat(3000)}${'a'.repeat(36)}\n`;
    const m = /<<cg:[0-9a-f]{16}>>/.exec(textOf(await call('cg_compress', { content, hint: 'log' })));
    expect(m).not.toBeNull();
    const [grep, stats] = await Promise.all([
      call('cg_expand', { key: m![0], grep: '(a+)+$' }),
      call('cg_stats', {}),
    ]);
    expect(textOf(grep)).toBe(`3001:${'a'.repeat(36)}\n`);
    expect(textOf(stats)).toMatch(/^session mcp-test-session/);
    const bad = await call('cg_expand', { key: m![0], grep: 'a(?=b)' });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/^grep: "a\(\?=b\)" uses a look-ahead/);
  });
});

describe('cg mcp when the client closes stdin', () => {
  it('finishes and answers a cg_compress that is still running, then exits', async () => {
    const dir = tempDir('cg-mcp-close-');
    const client = new Client({ name: 'cg-test', version: '0' });
    await client.connect(serverIn(dir));
    const content = seq(200_000);
    const reply = client.callTool({ name: 'cg_compress', arguments: { content, hint: 'log' } });
    await new Promise((resolve) => setImmediate(resolve));
    // close() ends the server's stdin at once, while the call is still being read or run.
    await client.close();
    const result = (await reply) as TextResult;
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toMatch(/<<cg:[0-9a-f]{16}>> \[full output: cg_expand key=[0-9a-f]{16}\]/);
  });
});
