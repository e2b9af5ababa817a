import { describe, expect, it } from 'vitest';
import { OPENCODE_WRAP } from '../../../src/hosts/opencode/wrap.js';

const HOME = '/home/u';
const env = (more: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({ HOME, ...more });
const files =
  (map: Record<string, string>) =>
  (path: string): string | undefined =>
    map[path];
const anthropicAt = (baseURL: string) =>
  JSON.stringify({ provider: { anthropic: { options: { baseURL } } } });

describe('cg wrap opencode', () => {
  it("forwards where OpenCode would have gone: the nearest config layer's baseURL over ANTHROPIC_BASE_URL", () => {
    const read = files({
      [`${HOME}/.config/opencode/opencode.json`]: anthropicAt('https://global.example/v1'),
      '/p/opencode.jsonc': `// the project's\n{ "provider": { "anthropic": { "options": { "baseURL": "https://project.example/v1/" } } }, }`,
    });
    expect(OPENCODE_WRAP.ownBase(env({ ANTHROPIC_BASE_URL: 'https://env.example' }), '/p', read)).toBe(
      'https://project.example',
    );
    expect(OPENCODE_WRAP.ownBase(env({ ANTHROPIC_BASE_URL: 'https://env.example/' }), '/q', files({}))).toBe(
      'https://env.example',
    );
    expect(
      OPENCODE_WRAP.ownBase(
        env({ OPENCODE_CONFIG_CONTENT: anthropicAt('https://inline.example/v1') }),
        '/p',
        read,
      ),
    ).toBe('https://inline.example');
    expect(OPENCODE_WRAP.ownBase(env(), '/q', files({}))).toBeUndefined();
  });

  it("points the anthropic provider at the proxy in the inline config, keeping the rest of the user's own", () => {
    const own = JSON.stringify({
      permission: { bash: 'ask' },
      provider: {
        anthropic: { options: { baseURL: 'https://x.example/v1', timeout: 5 } },
        openai: { name: 'o' },
      },
    });
    const pointed = OPENCODE_WRAP.point('http://127.0.0.1:9', env({ OPENCODE_CONFIG_CONTENT: own }), [
      'run',
      'hi',
    ]);
    expect('env' in pointed && pointed.args).toEqual(['run', 'hi']);
    const config = JSON.parse('env' in pointed ? pointed.env.OPENCODE_CONFIG_CONTENT! : '{}');
    expect(config).toEqual({
      permission: { bash: 'ask' },
      provider: {
        anthropic: { options: { baseURL: 'http://127.0.0.1:9/v1', timeout: 5 } },
        openai: { name: 'o' },
      },
    });
  });

  it('leaves OpenCode unwrapped, saying why, when the inline config it was given is not an object', () => {
    const pointed = OPENCODE_WRAP.point('http://127.0.0.1:9', env({ OPENCODE_CONFIG_CONTENT: '[1' }), []);
    expect(pointed).toEqual({ unsupported: expect.stringMatching(/OPENCODE_CONFIG_CONTENT/) });
  });

  it('prints the inline config as one export line a shell can eval', () => {
    const lines = OPENCODE_WRAP.printEnv('http://127.0.0.1:8787');
    expect(Array.isArray(lines) && lines.at(-1)).toBe(
      `export OPENCODE_CONFIG_CONTENT='{"provider":{"anthropic":{"options":{"baseURL":"http://127.0.0.1:8787/v1"}}}}'`,
    );
  });
});
