/**
 * Adds cg's PreToolUse hook to, and removes it from, an agent's JSON hook settings — Claude Code's
 * settings.json and Codex's hooks.json share the shape
 *
 *   {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "cg hook claude"}]}]}}
 *
 * as text in, text out, touching nothing else: every other key, hook and matcher group stays as it
 * was and where it was, and the file keeps its indentation and final newline. Installing is
 * idempotent (a cg hook already there, in any group, means nothing to do); uninstalling removes
 * only cg's own handlers, and the groups, lists and `hooks` object that this leaves empty, so
 * install then uninstall gives back the file it started from.
 */

export interface HookEntry {
  /** Tool matcher: the agent's shell tool. */
  matcher: string;
  command: string;
  /** Seconds the agent waits for the hook before going ahead without it. */
  timeout: number;
}

export type Edit = { ok: true; text: string; changed: boolean } | { ok: false; reason: string };

const EVENT = 'PreToolUse';

/** A handler command that is cg's hook (`cg hook claude`, `/usr/local/bin/cg hook codex`, …). */
export function isCgHookCommand(command: unknown): boolean {
  return typeof command === 'string' && /(^|[\s/])cg(\.js)?\s+hook\s+[a-z]+\s*$/.test(command);
}

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export interface Parsed {
  root: Json;
  indent: string;
  newline: boolean;
}

export function parse(text: string | undefined): Parsed | { reason: string } {
  if (text === undefined || text.trim() === '') return { root: {}, indent: '  ', newline: true };
  let root: unknown;
  try {
    root = JSON.parse(text);
  } catch (err) {
    return { reason: `not valid JSON (${(err as Error).message}); fix it or move it away first` };
  }
  if (!isObject(root)) return { reason: 'not a JSON object' };
  const indent = /^[{[]\r?\n([ \t]+)/.exec(text)?.[1] ?? (text.trim().includes('\n') ? '  ' : '');
  return { root, indent: indent || '  ', newline: text.endsWith('\n') };
}

export function serialise(p: Parsed): string {
  return JSON.stringify(p.root, null, p.indent) + (p.newline ? '\n' : '');
}

/** The PreToolUse list, or why the file's hooks are not in a shape cg will edit. */
function eventList(root: Json, create: boolean): unknown[] | undefined | { reason: string } {
  if (root.hooks === undefined) {
    if (!create) return undefined;
    root.hooks = {};
  }
  if (!isObject(root.hooks)) return { reason: '"hooks" is not an object' };
  const hooks = root.hooks;
  if (hooks[EVENT] === undefined) {
    if (!create) return undefined;
    hooks[EVENT] = [];
  }
  if (!Array.isArray(hooks[EVENT])) return { reason: `"hooks.${EVENT}" is not a list` };
  return hooks[EVENT] as unknown[];
}

function hasCgHook(list: readonly unknown[]): boolean {
  return list.some(
    (group) =>
      isObject(group) &&
      Array.isArray(group.hooks) &&
      group.hooks.some((h) => isObject(h) && isCgHookCommand(h.command)),
  );
}

export function installHook(text: string | undefined, entry: HookEntry): Edit {
  const p = parse(text);
  if ('reason' in p) return { ok: false, reason: p.reason };
  const existing = eventList(p.root, false);
  if (existing && 'reason' in existing) return { ok: false, reason: existing.reason };
  if (existing && hasCgHook(existing)) return { ok: true, text: text ?? serialise(p), changed: false };
  const list = eventList(p.root, true) as unknown[];
  list.push({
    matcher: entry.matcher,
    hooks: [{ type: 'command', command: entry.command, timeout: entry.timeout }],
  });
  return { ok: true, text: serialise(p), changed: true };
}

export function uninstallHook(text: string | undefined, _entry?: Partial<HookEntry>): Edit {
  if (text === undefined) return { ok: true, text: '', changed: false };
  const p = parse(text);
  if ('reason' in p) return { ok: false, reason: p.reason };
  const list = eventList(p.root, false);
  if (list === undefined) return { ok: true, text, changed: false };
  if ('reason' in list) return { ok: false, reason: list.reason };
  if (!hasCgHook(list)) return { ok: true, text, changed: false };

  const kept: unknown[] = [];
  for (const group of list) {
    if (!isObject(group) || !Array.isArray(group.hooks)) {
      kept.push(group);
      continue;
    }
    const handlers = group.hooks.filter((h) => !(isObject(h) && isCgHookCommand(h.command)));
    if (handlers.length === group.hooks.length) kept.push(group);
    else if (handlers.length > 0) kept.push({ ...group, hooks: handlers });
    // else: the group held only cg's hook, so cg added it: it goes.
  }
  const hooks = p.root.hooks as Json;
  if (kept.length > 0) hooks[EVENT] = kept;
  else delete hooks[EVENT];
  if (Object.keys(hooks).length === 0) delete p.root.hooks;
  return { ok: true, text: serialise(p), changed: true };
}
