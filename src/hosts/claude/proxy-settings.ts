/**
 * `cg init claude --proxy`: points Claude Code at `cg proxy` through the `env` map of its
 * settings.json — `ANTHROPIC_BASE_URL` to the proxy, and `ENABLE_TOOL_SEARCH: "true"` unless the
 * user set it (Claude Code turns tool search off for any non-default host otherwise). Text in, text
 * out, through hosts/hook/settings.ts's span-preserving edits: every other byte stays as the user wrote it,
 * and running it twice changes nothing. Uninstalling removes ANTHROPIC_BASE_URL only when it is a
 * loopback URL (one cg could have written) and leaves ENABLE_TOOL_SEARCH, which the user may want.
 */

import { isObject } from '../../json/payload.js';
import { type Edit, removeMember, setMember, valueAt } from '../hook/settings.js';

function isLoopbackUrl(v: unknown): boolean {
  if (typeof v !== 'string') return false;
  try {
    const h = new URL(v).hostname.replace(/^\[|\]$/g, '');
    return h === 'localhost' || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h);
  } catch {
    return false;
  }
}

export async function claudeProxyEdit(
  text: string | undefined,
  url: string,
  uninstall: boolean,
): Promise<Edit> {
  const before = text ?? '';
  const env = before.trim() === '' ? undefined : await valueAt(before, ['env']);
  if (env !== undefined && !isObject(env))
    return { ok: false, reason: '"env" is not an object; fix it first' };
  const vars = env ?? {};
  if (uninstall) {
    if (!isLoopbackUrl(vars.ANTHROPIC_BASE_URL)) return { ok: true, text: before, changed: false };
    return removeMember(before, 'env', 'ANTHROPIC_BASE_URL');
  }
  if (vars.ANTHROPIC_BASE_URL === url && vars.ENABLE_TOOL_SEARCH !== undefined)
    return { ok: true, text: before, changed: false };
  let out = before;
  if (vars.ANTHROPIC_BASE_URL !== url) {
    const r = await setMember(out, 'env', 'ANTHROPIC_BASE_URL', url);
    if (!r.ok) return r;
    out = r.text;
  }
  if (vars.ENABLE_TOOL_SEARCH === undefined) {
    const r = await setMember(out, 'env', 'ENABLE_TOOL_SEARCH', 'true');
    if (!r.ok) return r;
    out = r.text;
  }
  return { ok: true, text: out, changed: out !== before };
}
