/**
 * What a user puts in front of an agent to route it through `cg proxy`: the lines `cg proxy`
 * prints at start-up, and the values `cg init claude --proxy` and `cg doctor` use. One place, so
 * the printed advice, the installer and the check cannot drift apart.
 */

export const DEFAULT_PROXY_URL = 'http://127.0.0.1:8787';

/** The proxy URL from `--proxy [url]` (commander gives true for the bare flag). */
export function proxyUrlOf(flag: string | boolean | undefined): string {
  if (typeof flag !== 'string') return DEFAULT_PROXY_URL;
  return flag.replace(/\/+$/, '');
}

/** Codex's provider name for cg in ~/.codex/config.toml. */
export const CODEX_PROVIDER = 'cg';

/** The Codex config.toml lines for a provider that goes through the proxy. */
export function codexSnippet(url: string): string {
  return [
    `model_provider = "${CODEX_PROVIDER}"`,
    `[model_providers.${CODEX_PROVIDER}]`,
    'name = "cg proxy"',
    `base_url = "${url}/v1"`,
    'wire_api = "responses"',
    'env_key = "OPENAI_API_KEY"',
  ].join('\n');
}

/** The lines `cg proxy` prints once it listens at `url`. */
export function setupLines(url: string): string {
  const indent = (s: string) =>
    s
      .split('\n')
      .map((l) => `    ${l}`)
      .join('\n');
  return [
    'Claude Code (or `cg init claude --proxy` to write it into ~/.claude/settings.json):',
    `    export ANTHROPIC_BASE_URL=${url}`,
    '    export ENABLE_TOOL_SEARCH=true   # Claude Code turns tool search off for a non-default host',
    'Codex (~/.codex/config.toml; Codex talks HTTP to a custom provider, no websockets):',
    indent(codexSnippet(url)),
    'Gemini CLI (API key or gateway auth; or `cg wrap gemini`):',
    `    export GOOGLE_GEMINI_BASE_URL=${url}`,
    'OpenAI SDKs and other clients:',
    `    export OPENAI_BASE_URL=${url}/v1`,
    '',
  ].join('\n');
}
