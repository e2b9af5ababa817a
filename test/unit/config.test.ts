import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findConfigFile, loadConfig, parseConfigObject } from '../../src/config.js';
import { ConfigError } from '../../src/errors.js';
import { tempDir } from '../helpers.js';

function write(dir: string, name: string, text: string) {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe('config', () => {
  it('reads preset, tokenizer, component settings and store limits from YAML', async () => {
    const dir = tempDir();
    const file = write(
      dir,
      'c.yaml',
      'preset: safe\ntokenizer: cl100k\ncomponents:\n  collapse:\n    head_lines: 5\nstore:\n  ttl_days: 3\n  max_mb: 64\n  hint: " [expand with cg_expand {key}]"\n',
    );
    const cfg = await loadConfig(file, {}, dir);
    expect(cfg.file).toBe(file);
    expect(cfg.preset).toBe('safe');
    expect(cfg.tokenizer).toBe('cl100k');
    expect(cfg.components.collapse).toMatchObject({ head_lines: 5, tail_lines: 20 });
    expect(cfg.store).toMatchObject({
      ttlDays: 3,
      maxBytes: 64 * 2 ** 20,
      hint: ' [expand with cg_expand {key}]',
    });
  });

  it('names the file and the dotted path of a bad value', async () => {
    const dir = tempDir();
    const file = write(dir, 'c.yaml', 'components:\n  collapse:\n    head_lines: x\n');
    await expect(loadConfig(file, {}, dir)).rejects.toThrow(
      `${file}: components.collapse.head_lines: expected an integer ≥ 0, got "x"`,
    );
  });

  it('reads the model section for model-assisted components', () => {
    const cfg = parseConfigObject({
      model: { source: 'config', model: 'gpt-4.1-mini', api: 'openai', timeout_ms: 5000 },
    });
    expect(cfg.model).toMatchObject({
      source: 'config',
      model: 'gpt-4.1-mini',
      api: 'openai',
      timeoutMs: 5000,
    });
    expect(parseConfigObject({}).model.source).toBe('incoming');
  });

  it('rejects unknown keys, unknown components, unknown presets and bad YAML', async () => {
    expect(() => parseConfigObject({ presett: 'safe' })).toThrow(/presett: unknown key/);
    expect(() => parseConfigObject({ components: { nope: {} } })).toThrow(/components\.nope: unknown key/);
    expect(() => parseConfigObject({ preset: 'fast' })).toThrow(/preset: expected one of off, safe/);
    expect(() => parseConfigObject({ store: { ttl: 1 } })).toThrow(/store\.ttl: unknown key/);
    expect(() => parseConfigObject({ store: { hint: 'no key here' } })).toThrow(
      /store\.hint: must contain \{key\}/,
    );
    expect(() => parseConfigObject({ model: { name: 'x' } })).toThrow(/model\.name: unknown key/);
    expect(() => parseConfigObject({ model: { api_key: 'sk-1' } })).toThrow(
      /model\.api_key: .*environment variable/,
    );
    expect(() => parseConfigObject({ model: { api: 'gemini' } })).toThrow(/model\.api: expected one of/);
    const dir = tempDir();
    const file = write(dir, 'c.yaml', 'preset: [unclosed\n');
    await expect(loadConfig(file, {}, dir)).rejects.toThrow(/invalid YAML/);
  });

  it('refuses a component name it does not know rather than ignoring it', () => {
    expect(() => parseConfigObject({ components: { summarise: {} } })).toThrow(
      /components\.summarise: unknown key/,
    );
  });

  it('finds --config, then CG_CONFIG, then ./.cg.yaml, then the XDG config file', () => {
    const dir = tempDir();
    const xdg = join(dir, 'xdg');
    mkdirSync(join(xdg, 'cg'), { recursive: true });
    const user = write(join(xdg, 'cg'), 'config.yaml', '{}');
    expect(findConfigFile(undefined, { XDG_CONFIG_HOME: xdg }, dir)).toBe(user);
    const local = write(dir, '.cg.yaml', '{}');
    expect(findConfigFile(undefined, { XDG_CONFIG_HOME: xdg }, dir)).toBe(local);
    const env = write(dir, 'env.yaml', '{}');
    expect(findConfigFile(undefined, { XDG_CONFIG_HOME: xdg, CG_CONFIG: env }, dir)).toBe(env);
    const flag = write(dir, 'flag.yaml', '{}');
    expect(findConfigFile(flag, { XDG_CONFIG_HOME: xdg, CG_CONFIG: env }, dir)).toBe(flag);
  });

  it('fails clearly when a named config file does not exist', () => {
    expect(() => findConfigFile('/nonexistent/cg.yaml', {}, '/')).toThrow(ConfigError);
    expect(() => findConfigFile('/nonexistent/cg.yaml', {}, '/')).toThrow(/config file not found/);
  });

  it('reads an empty file as the defaults', async () => {
    const dir = tempDir();
    const cfg = await loadConfig(write(dir, 'c.yaml', ''), {}, dir);
    expect(cfg.preset).toBeUndefined();
    expect(cfg.store.ttlDays).toBe(14);
  });
});
