/**
 * `cg init claude --proxy`: points Claude Code at `cg proxy` through the `env` map of its
 * settings.json — `ANTHROPIC_BASE_URL` to the proxy, and `ENABLE_TOOL_SEARCH: "true"` unless the
 * user set it (Claude Code turns tool search off for any non-default host otherwise). Text in, text
 * out, touching nothing else (the parser and writer of hook/settings.ts keep the file's layout);
 * running it twice changes nothing. Uninstalling removes ANTHROPIC_BASE_URL only when it is a
 * loopback URL (one cg could have written) and leaves ENABLE_TOOL_SEARCH, which the user may want.
 */
import { type Edit, parse, serialise } from '../hook/settings.js';
import { DEFAULT_PROXY_URL } from './setup.js';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The proxy URL from `--proxy [url]` (commander gives true for the bare flag). */
export function proxyUrlOf(flag: string | boolean | undefined): string {
  if (typeof flag !== 'string') return DEFAULT_PROXY_URL;
  return flag.replace(/\/+$/, '');
}

function isLoopbackUrl(v: unknown): boolean {
  if (typeof v !== 'string') return false;
  try {
    const h = new URL(v).hostname.replace(/^\[|\]$/g, '');
    return h === 'localhost' || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h);
  } catch {
    return false;
  }
}

export function claudeProxyEdit(text: string | undefined, url: string, uninstall: boolean): Edit {
  const p = parse(text);
  if ('reason' in p) return { ok: false, reason: p.reason };
  const env = p.root.env;
  if (env !== undefined && !isObject(env))
    return { ok: false, reason: '"env" is not an object; fix it first' };
  if (uninstall) {
    if (!env || !isLoopbackUrl(env.ANTHROPIC_BASE_URL)) return { ok: true, text: text ?? '', changed: false };
    delete env.ANTHROPIC_BASE_URL;
    if (Object.keys(env).length === 0) delete p.root.env;
    return { ok: true, text: serialise(p), changed: true };
  }
  const next: Json = env ?? {};
  if (next.ANTHROPIC_BASE_URL === url && next.ENABLE_TOOL_SEARCH !== undefined)
    return { ok: true, text: text ?? '', changed: false };
  next.ANTHROPIC_BASE_URL = url;
  next.ENABLE_TOOL_SEARCH ??= 'true';
  p.root.env = next;
  return { ok: true, text: serialise(p), changed: true };
}
