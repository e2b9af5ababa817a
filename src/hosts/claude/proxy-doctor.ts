/**
 * `cg doctor`'s proxy section for Claude Code: does it point at the proxy (ANTHROPIC_BASE_URL in
 * the environment, else its user settings' env map), and is ENABLE_TOOL_SEARCH set (Claude Code
 * turns tool search off for any non-default host otherwise). Reads only URLs; never throws.
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { isObject, objectAt, stringAt } from '../../json/payload.js';
import type { DoctorCheck } from '../../proxy/doctor.js';
import type { ProxyDoctor } from '../host.js';

function readJson(path: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(readFileSync(path, 'utf8'));
    return isObject(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

/** Where Claude Code's base URL comes from: the environment, else its user settings' env map. */
function claudeBaseUrl(env: NodeJS.ProcessEnv): { url?: string; from: string } {
  if (env.ANTHROPIC_BASE_URL) return { url: env.ANTHROPIC_BASE_URL, from: 'ANTHROPIC_BASE_URL' };
  const file = join(env.CLAUDE_CONFIG_DIR || join(env.HOME || homedir(), '.claude'), 'settings.json');
  const value = stringAt(readJson(file), 'env', 'ANTHROPIC_BASE_URL');
  return value !== undefined ? { url: value, from: file } : { from: file };
}

const sameUrl = (a: string | undefined, b: string) =>
  a !== undefined && a.replace(/\/+$/, '') === b.replace(/\/+$/, '');

export const CLAUDE_PROXY_DOCTOR: ProxyDoctor = {
  configuredUrl(env) {
    const { url } = claudeBaseUrl(env);
    return url && /^http:\/\/(127\.|localhost|\[::1\])/.test(url) ? url : undefined;
  },
  checks(env, url) {
    const claude = claudeBaseUrl(env);
    if (!sameUrl(claude.url, url)) {
      return [
        {
          name: 'claude',
          status: 'warn',
          detail: claude.url
            ? `Claude Code points at ${claude.url}, not the proxy (${claude.from})`
            : 'Claude Code does not use the proxy: `cg init claude --proxy`',
        },
      ];
    }
    const toolSearch = env.ENABLE_TOOL_SEARCH ?? objectAt(readJson(claude.from), 'env')?.ENABLE_TOOL_SEARCH;
    const checks: DoctorCheck[] = [
      { name: 'claude', status: 'ok', detail: `Claude Code points at it (${claude.from})` },
    ];
    if (toolSearch === undefined)
      checks.push({
        name: 'claude tool search',
        status: 'warn',
        detail: 'ENABLE_TOOL_SEARCH is not set: Claude Code turns tool search off for a non-default host',
      });
    return checks;
  },
};
