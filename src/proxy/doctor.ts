/**
 * proxyDoctor(): what `cg doctor` reports about the proxy — is a `cg proxy` answering (GET
 * /_cg/health), and do Claude Code, Codex and Gemini CLI point at it. Each check is one line with a status;
 * nothing here throws, writes, or prints a secret (it reads only URLs from settings and env).
 * The URL checked is the one Claude Code is configured with when that is a local one, else the
 * default http://127.0.0.1:8787.
 */
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { geminiProxyCheck } from '../hosts/gemini-wrap.js';
import { DEFAULT_PROXY_URL } from './setup.js';

export interface DoctorCheck {
  name: string;
  status: 'ok' | 'warn' | 'fail';
  detail: string;
}

export interface ProxyDoctorOptions {
  env?: NodeJS.ProcessEnv;
  /** The proxy URL to check (default: the one Claude Code is set to, else the default). */
  url?: string;
  timeoutMs?: number;
}

function readJson(path: string): Record<string, unknown> | undefined {
  try {
    const v = JSON.parse(readFileSync(path, 'utf8'));
    return v && typeof v === 'object' && !Array.isArray(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

/** Where Claude Code's base URL comes from: the environment, else its user settings' env map. */
function claudeBaseUrl(env: NodeJS.ProcessEnv): { url?: string; from: string } {
  if (env.ANTHROPIC_BASE_URL) return { url: env.ANTHROPIC_BASE_URL, from: 'ANTHROPIC_BASE_URL' };
  const file = join(env.CLAUDE_CONFIG_DIR || join(env.HOME || homedir(), '.claude'), 'settings.json');
  const value = (readJson(file)?.env as Record<string, unknown> | undefined)?.ANTHROPIC_BASE_URL;
  return typeof value === 'string' ? { url: value, from: file } : { from: file };
}

const sameUrl = (a: string | undefined, b: string) =>
  a !== undefined && a.replace(/\/+$/, '') === b.replace(/\/+$/, '');

export async function proxyDoctor(o: ProxyDoctorOptions = {}): Promise<DoctorCheck[]> {
  const env = o.env ?? process.env;
  const claude = claudeBaseUrl(env);
  const local = claude.url && /^http:\/\/(127\.|localhost|\[::1\])/.test(claude.url) ? claude.url : undefined;
  const url = (o.url ?? local ?? DEFAULT_PROXY_URL).replace(/\/+$/, '');
  const checks: DoctorCheck[] = [];

  try {
    const res = await fetch(`${url}/_cg/health`, { signal: AbortSignal.timeout(o.timeoutMs ?? 1500) });
    const body = (await res.json()) as { cg?: unknown; preset?: unknown; observe?: unknown };
    checks.push(
      body.cg === 'proxy'
        ? {
            name: 'proxy',
            status: 'ok',
            detail: `cg proxy answers at ${url} (preset ${String(body.preset)}${body.observe ? ', observe only' : ''})`,
          }
        : { name: 'proxy', status: 'fail', detail: `${url} answers, but it is not cg proxy` },
    );
  } catch {
    checks.push({
      name: 'proxy',
      status: 'fail',
      detail: `no cg proxy answers at ${url}: start it with \`cg proxy\``,
    });
  }

  if (sameUrl(claude.url, url)) {
    const toolSearch =
      env.ENABLE_TOOL_SEARCH ??
      (readJson(claude.from)?.env as Record<string, unknown> | undefined)?.ENABLE_TOOL_SEARCH;
    checks.push({ name: 'claude', status: 'ok', detail: `Claude Code points at it (${claude.from})` });
    if (toolSearch === undefined)
      checks.push({
        name: 'claude tool search',
        status: 'warn',
        detail: 'ENABLE_TOOL_SEARCH is not set: Claude Code turns tool search off for a non-default host',
      });
  } else {
    checks.push({
      name: 'claude',
      status: 'warn',
      detail: claude.url
        ? `Claude Code points at ${claude.url}, not the proxy (${claude.from})`
        : 'Claude Code does not use the proxy: `cg init claude --proxy`',
    });
  }

  const codexConfig = join(env.CODEX_HOME || join(env.HOME || homedir(), '.codex'), 'config.toml');
  const toml = existsSync(codexConfig) ? readFileSync(codexConfig, 'utf8') : '';
  checks.push(
    toml.includes(`base_url = "${url}/v1"`)
      ? { name: 'codex', status: 'ok', detail: `a Codex model_provider points at it (${codexConfig})` }
      : {
          name: 'codex',
          status: 'warn',
          detail: `no Codex model_provider points at ${url}/v1: \`cg init codex --proxy\` prints the lines`,
        },
  );
  checks.push(geminiProxyCheck(env, url));
  return checks;
}
