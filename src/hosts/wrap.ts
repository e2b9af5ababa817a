/**
 * How `cg wrap` points each host at a `cg proxy` for one run, the host's own way, never by editing
 * a settings file: `point()` gives the environment and arguments the host is started with, and
 * `ownBase()` the upstream the host would have used without cg (so the proxy forwards there, and a
 * gateway the user set keeps being used). No I/O of its own: files are read through the caller.
 *
 * - Claude Code reads ANTHROPIC_BASE_URL from the environment, but the `env` map of any settings
 *   layer is assigned over process.env at start-up (seen in the 2.1.332 binary), so a base URL in
 *   the user's settings.json would win; `--settings '{"env":{…}}'` (flagSettings, applied after
 *   the user, project and local layers) makes this run's URL win. ENABLE_TOOL_SEARCH=true unless
 *   set: Claude Code turns tool search off for a non-default host.
 * - Codex takes `-c key=value` config overrides for one run (before any subcommand): a
 *   model_provider `cg-wrap` whose base_url is the proxy, wire_api responses over HTTP (a custom
 *   provider with supports_websockets=false opens none, and the proxy refuses them), the API key
 *   from OPENAI_API_KEY. The upstream is OPENAI_BASE_URL's, else the config's (a provider of the
 *   user's own in config.toml is not read: cg wrap codex speaks to OpenAI's API).
 * - Gemini CLI: GOOGLE_GEMINI_BASE_URL (gemini-wrap.ts), for API-key and gateway auth only.
 */
import { gemini } from './gemini-wrap.js';
import type { HostName } from './host.js';

export type Wrapped = { env: Record<string, string>; args: string[] } | { unsupported: string };

export interface WrapHost {
  name: HostName;
  /** The executable started (found on PATH). */
  bin: string;
  /** The proxy provider the host's requests go to. */
  provider: 'anthropic' | 'openai' | 'gemini';
  /**
   * The base URL the host would use without cg, as an upstream origin+path (no /v1), if set;
   * `read` gives a settings file's text (undefined when there is none).
   */
  ownBase(
    env: NodeJS.ProcessEnv,
    cwd: string,
    read: (path: string) => string | undefined,
  ): string | undefined;
  /** Environment additions and the argument list for a run through the proxy at `url`. */
  point(url: string, env: NodeJS.ProcessEnv, args: readonly string[]): Wrapped;
  /** Shell lines for people who start the host themselves (`cg wrap --print-env`). */
  printEnv(url: string): string[] | { unsupported: string };
  /** Why this user's setup cannot go through the proxy (its requests go to an API cg does not serve). */
  unwrappable?(
    env: NodeJS.ProcessEnv,
    cwd: string,
    read: (path: string) => string | undefined,
  ): string | undefined;
}

export const CODEX_WRAP_PROVIDER = 'cg-wrap';

/** The `env` map of a settings.json text ({} when there is none or it does not parse). */
function settingsEnv(text: string | undefined): Record<string, unknown> {
  if (text === undefined) return {};
  try {
    const env = (JSON.parse(text) as { env?: unknown }).env;
    return env && typeof env === 'object' && !Array.isArray(env) ? (env as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

const nonEmpty = (v: string | undefined) => (v !== undefined && v.trim() !== '' ? v.trim() : undefined);

/** A user's --settings is theirs: cg does not add a second one (the environment still points). */
const hasSettingsFlag = (args: readonly string[]) =>
  args.some((a) => a === '--settings' || a.startsWith('--settings='));

const claude: WrapHost = {
  name: 'claude',
  bin: 'claude',
  provider: 'anthropic',
  ownBase(env, cwd, read) {
    // The settings layers' env maps win over the environment, the nearest layer last.
    const home = env.CLAUDE_CONFIG_DIR || `${env.HOME ?? ''}/.claude`;
    let base = nonEmpty(env.ANTHROPIC_BASE_URL);
    for (const file of [
      `${home}/settings.json`,
      `${cwd}/.claude/settings.json`,
      `${cwd}/.claude/settings.local.json`,
    ]) {
      const v = settingsEnv(read(file)).ANTHROPIC_BASE_URL;
      if (typeof v === 'string' && v.trim() !== '') base = v.trim();
    }
    return base?.replace(/\/+$/, '');
  },
  point(url, env, args) {
    const add: Record<string, string> = { ANTHROPIC_BASE_URL: url };
    if (env.ENABLE_TOOL_SEARCH === undefined) add.ENABLE_TOOL_SEARCH = 'true';
    const settings = JSON.stringify({ env: { ANTHROPIC_BASE_URL: url } });
    return { env: add, args: hasSettingsFlag(args) ? [...args] : ['--settings', settings, ...args] };
  },
  printEnv: (url) => [`export ANTHROPIC_BASE_URL=${url}`, 'export ENABLE_TOOL_SEARCH=true'],
};

/** The `-c` overrides that make Codex use the proxy at `url` for this run. */
export function codexOverrides(url: string): string[] {
  const p = `model_providers.${CODEX_WRAP_PROVIDER}`;
  return [
    `model_provider="${CODEX_WRAP_PROVIDER}"`,
    `${p}.name="cg proxy"`,
    `${p}.base_url="${url}/v1"`,
    `${p}.wire_api="responses"`,
    `${p}.env_key="OPENAI_API_KEY"`,
    `${p}.supports_websockets=false`,
  ].flatMap((kv) => ['-c', kv]);
}

const shellWord = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replaceAll("'", `'\\''`)}'`);

const codex: WrapHost = {
  name: 'codex',
  bin: 'codex',
  provider: 'openai',
  ownBase: (env) => nonEmpty(env.OPENAI_BASE_URL)?.replace(/\/+$/, '').replace(/\/v1$/, ''),
  point: (url, _env, args) => ({ env: {}, args: [...codexOverrides(url), ...args] }),
  printEnv: (url) => [
    '# Codex takes its provider from config, not the environment: start it with these overrides',
    `alias codex=${shellWord(`codex ${codexOverrides(url).map(shellWord).join(' ')}`)}`,
  ],
};

export const WRAP_HOSTS: readonly WrapHost[] = [claude, codex, gemini];
