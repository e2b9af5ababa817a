/**
 * How `cg wrap opencode` points OpenCode at a `cg proxy` for one run: through
 * OPENCODE_CONFIG_CONTENT, the inline config OpenCode reads from the environment and merges last,
 * over the global, OPENCODE_CONFIG and project layers (seen in the 1.18.33 binary), so this run's
 * `provider.anthropic.options.baseURL` wins and no file of the user's is written — with the
 * variable set OpenCode does not even create its default global config. A config the user already
 * passes that way is kept: cg's key is merged into it.
 *
 * Only OpenCode's `anthropic` provider is pointed (its @ai-sdk/anthropic client posts to
 * `{baseURL}/messages`; checked against a scripted server): a model of another provider goes
 * where it went without cg. The upstream is the base URL OpenCode would have used — the
 * config layers' baseURL, else ANTHROPIC_BASE_URL, which the SDK reads when no option is set.
 */
import { createRequire } from 'node:module';
import type * as Jsonc from 'jsonc-parser';
import type { WrapHost } from '../wrap.js';

// Loaded on first use, synchronously (the wrap rows are sync): this module sits in the hosts table
// every `cg hook` loads, and only `cg wrap opencode` parses OpenCode's JSONC.
let J: typeof Jsonc | undefined;
const jsonc = (): typeof Jsonc => {
  J ??= createRequire(import.meta.url)('jsonc-parser') as typeof Jsonc;
  return J;
};

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A JSONC document's top-level object, or undefined when the text is none or does not parse. */
function parseConfig(text: string | undefined): Json | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  const errors: Jsonc.ParseError[] = [];
  const value: unknown = jsonc().parse(text, errors, { allowTrailingComma: true });
  return errors.length === 0 && isObject(value) ? value : undefined;
}

/** provider.anthropic.options.baseURL of a config, when it names one. */
function anthropicBase(config: Json | undefined): string | undefined {
  const provider = isObject(config?.provider) ? config.provider : {};
  const anthropic = isObject(provider.anthropic) ? provider.anthropic : {};
  const options = isObject(anthropic.options) ? anthropic.options : {};
  const url = options.baseURL;
  return typeof url === 'string' && url.trim() !== '' ? url.trim() : undefined;
}

/** The config files OpenCode reads, lowest layer first (its global dir, OPENCODE_CONFIG, the project). */
function configFiles(env: NodeJS.ProcessEnv, cwd: string): string[] {
  const global = `${env.XDG_CONFIG_HOME || `${env.HOME ?? ''}/.config`}/opencode`;
  return [
    `${global}/config.json`,
    `${global}/opencode.json`,
    `${global}/opencode.jsonc`,
    ...(env.OPENCODE_CONFIG ? [env.OPENCODE_CONFIG] : []),
    `${cwd}/opencode.json`,
    `${cwd}/opencode.jsonc`,
    `${cwd}/.opencode/opencode.json`,
    `${cwd}/.opencode/opencode.jsonc`,
  ];
}

/** The inline config for this run: the user's own, with the anthropic provider's baseURL set. */
function pointedConfig(url: string, own: Json): Json {
  const provider = isObject(own.provider) ? own.provider : {};
  const anthropic = isObject(provider.anthropic) ? provider.anthropic : {};
  const options = isObject(anthropic.options) ? anthropic.options : {};
  return {
    ...own,
    provider: { ...provider, anthropic: { ...anthropic, options: { ...options, baseURL: `${url}/v1` } } },
  };
}

const shellQuote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

export const OPENCODE_WRAP: WrapHost = {
  name: 'opencode',
  bin: 'opencode',
  provider: 'anthropic',
  ownBase(env, cwd, read) {
    let base = env.ANTHROPIC_BASE_URL?.trim() || undefined;
    for (const file of configFiles(env, cwd)) base = anthropicBase(parseConfig(read(file))) ?? base;
    base = anthropicBase(parseConfig(env.OPENCODE_CONFIG_CONTENT)) ?? base;
    return base?.replace(/\/+$/, '').replace(/\/v1$/, '');
  },
  point(url, env, args) {
    const text = env.OPENCODE_CONFIG_CONTENT;
    const own = text === undefined || text.trim() === '' ? {} : parseConfig(text);
    if (own === undefined)
      return {
        unsupported: 'OPENCODE_CONFIG_CONTENT is set but is not a JSON object cg can add its proxy to',
      };
    return { env: { OPENCODE_CONFIG_CONTENT: JSON.stringify(pointedConfig(url, own)) }, args: [...args] };
  },
  printEnv: (url) => [
    '# OpenCode reads this inline config last, over its config files (its anthropic provider only)',
    `export OPENCODE_CONFIG_CONTENT=${shellQuote(JSON.stringify(pointedConfig(url, {})))}`,
  ],
};
