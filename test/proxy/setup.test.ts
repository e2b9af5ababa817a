import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { claudeProxyEdit } from '../../src/hosts/claude/proxy-settings.js';
import { proxyDoctor } from '../../src/proxy/doctor.js';
import { cg, cgAsync } from '../e2e/run-cg.js';
import { tempDir } from '../helpers.js';
import { startTestProxy, type TestProxy } from './harness.js';

const open: TestProxy[] = [];
afterEach(async () => {
  while (open.length) await open.pop()!.close();
});

describe('cg init claude --proxy', () => {
  it("sets env.ANTHROPIC_BASE_URL and ENABLE_TOOL_SEARCH, keeping every other setting and the file's layout", async () => {
    const before = '{\n    "model": "opus",\n    "env": {\n        "FOO": "1"\n    }\n}\n';
    const e = await claudeProxyEdit(before, 'http://127.0.0.1:8787', false);
    expect(e).toEqual({
      ok: true,
      changed: true,
      text: '{\n    "model": "opus",\n    "env": {\n        "FOO": "1",\n        "ANTHROPIC_BASE_URL": "http://127.0.0.1:8787",\n        "ENABLE_TOOL_SEARCH": "true"\n    }\n}\n',
    });
    if (!e.ok) return;
    expect(await claudeProxyEdit(e.text, 'http://127.0.0.1:8787', false)).toMatchObject({
      ok: true,
      changed: false,
    });
    const back = await claudeProxyEdit(e.text, 'http://127.0.0.1:8787', true);
    expect(back.ok && JSON.parse(back.text)).toEqual({
      model: 'opus',
      env: { FOO: '1', ENABLE_TOOL_SEARCH: 'true' },
    });
  });

  it('keeps a tool-search setting the user chose, and never removes a base URL that is not local', async () => {
    const e = await claudeProxyEdit('{"env":{"ENABLE_TOOL_SEARCH":"false"}}', 'http://127.0.0.1:9', false);
    expect(e.ok && JSON.parse(e.text).env).toEqual({
      ENABLE_TOOL_SEARCH: 'false',
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:9',
    });
    expect(await claudeProxyEdit('{"env":{"ANTHROPIC_BASE_URL":"https://gw.corp"}}', '', true)).toMatchObject(
      {
        changed: false,
      },
    );
    expect(await claudeProxyEdit('{"env":[1]}', 'http://127.0.0.1:9', false)).toMatchObject({ ok: false });
  });

  it('writes the setting into Claude Code settings, with --dry-run showing the diff first', () => {
    const home = tempDir();
    const env = { HOME: home };
    const dry = cg(['init', 'claude', '--proxy', '--dry-run'], { env });
    expect(dry.code).toBe(0);
    expect(dry.out).toContain('+    "ANTHROPIC_BASE_URL": "http://127.0.0.1:8787"');
    const r = cg(['init', 'claude', '--proxy', 'http://127.0.0.1:9999'], { env });
    expect(r.code).toBe(0);
    expect(r.out).toContain('added the cg proxy setting (env.ANTHROPIC_BASE_URL)');
    const settings = JSON.parse(readFileSync(join(home, '.claude', 'settings.json'), 'utf8'));
    expect(settings.env).toEqual({ ANTHROPIC_BASE_URL: 'http://127.0.0.1:9999', ENABLE_TOOL_SEARCH: 'true' });
    expect(cg(['init', 'claude', '--proxy', '--uninstall'], { env }).out).toContain(
      'removed the cg proxy setting',
    );
  });

  it('prints the Codex model_provider lines for cg init codex --proxy', () => {
    const r = cg(['init', 'codex', '--proxy'], { env: { HOME: tempDir() } });
    expect(r.code).toBe(0);
    expect(r.out).toContain('[model_providers.cg]');
    expect(r.out).toContain('base_url = "http://127.0.0.1:8787/v1"');
  });
});

describe('proxyDoctor', () => {
  it('says the proxy answers and which clients point at it', async () => {
    const p = await startTestProxy();
    open.push(p);
    const home = tempDir();
    mkdirSync(join(home, '.codex'), { recursive: true });
    writeFileSync(
      join(home, '.codex', 'config.toml'),
      `model_provider = "cg"\n[model_providers.cg]\nbase_url = "${p.url}/v1"\n`,
    );
    const checks = await proxyDoctor({
      env: { HOME: home, ANTHROPIC_BASE_URL: p.url, GOOGLE_GEMINI_BASE_URL: `${p.url}/` },
    });
    expect(checks.map((c) => [c.name, c.status])).toEqual([
      ['proxy', 'ok'],
      ['claude', 'ok'],
      ['claude tool search', 'warn'],
      ['codex', 'ok'],
      ['gemini', 'ok'],
    ]);
  });

  it('says plainly when no proxy answers and nothing points at one', async () => {
    const checks = await proxyDoctor({ env: { HOME: tempDir() }, url: 'http://127.0.0.1:9' });
    expect(checks[0]).toMatchObject({ name: 'proxy', status: 'fail' });
    expect(checks[0]!.detail).toMatch(/no cg proxy answers at http:\/\/127\.0\.0\.1:9/);
    expect(checks.slice(1).map((c) => c.status)).toEqual(['warn', 'warn', 'warn']);
    expect(checks.at(-1)!.detail).toMatch(/^Gemini CLI does not use the proxy: `cg wrap gemini`/);
  });
});

describe('cg doctor and the proxy', () => {
  it('reports the proxy a client points at: 0 while it answers, 1 once it is gone; nothing to say when unused', async () => {
    const home = tempDir();
    expect(cg(['doctor'], { env: { HOME: home } }).out).toContain('cg proxy: not in use');
    const p = await startTestProxy();
    open.push(p);
    mkdirSync(join(home, '.claude'), { recursive: true });
    writeFileSync(
      join(home, '.claude', 'settings.json'),
      JSON.stringify({ env: { ANTHROPIC_BASE_URL: p.url, ENABLE_TOOL_SEARCH: 'true' } }),
    );
    // Async: the proxy runs in this process and must answer while cg doctor asks it.
    const up = await cgAsync(['doctor'], { env: { HOME: home } });
    expect(up.out).toMatch(/cg proxy:\n {2}ok {3}cg proxy answers at/);
    expect(up.out).toMatch(/ok {3}Claude Code points at it/);
    expect(up.code).toBe(0);
    await open.pop()!.close();
    const down = cg(['doctor'], { env: { HOME: home } });
    expect(down.out).toMatch(/FAIL no cg proxy answers at/);
    expect(down.code).toBe(1);
  });
});
