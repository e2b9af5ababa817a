/**
 * Adds cg's hook entries to, and removes them from, an agent host's JSON settings — Claude Code's
 * and Gemini CLI's settings.json and Codex's hooks.json share the shape
 *
 *   {"hooks": {"PostToolUse": [{"matcher": "Bash|Read", "hooks": [{"type": "command", "command": "…"}]}]}}
 *
 * as text in, text out, and every byte outside what cg adds or removes stays as the user wrote it:
 * indentation, key order, comments (JSONC), one-line arrays, the final newline. Offsets come from
 * jsonc-parser's parse tree; insertions (indented like their new siblings) and removals (with their
 * separator) are cut in here, so an install followed by an uninstall gives back the original bytes. Installing is idempotent, and it migrates: cg handlers under a legacy event
 * (an older cg's PreToolUse) or with an older command line are removed before the current entries
 * go in, so one `cg init` leaves exactly one cg entry per event. Uninstalling removes only cg's own
 * handlers, and the groups, lists and `hooks` object that this leaves empty.
 */
import type { Node, ParseError } from 'jsonc-parser';
import { arrayAt, numberAt, stringAt } from '../../json/payload.js';
import { cjsExports } from '../../lazy.js';
import { HOST_NAMES } from '../names.js';

type Jsonc = typeof import('jsonc-parser');
let J: Jsonc | undefined;

/** jsonc-parser, loaded on first use: only `cg init` and `cg doctor` edit or read host settings. */
async function jsonc(): Promise<Jsonc> {
  J ??= cjsExports(await import('jsonc-parser'));
  return J;
}

const parseTree: Jsonc['parseTree'] = (...a) => J!.parseTree(...a);
const findNodeAtLocation: Jsonc['findNodeAtLocation'] = (...a) => J!.findNodeAtLocation(...a);
const getNodeValue: Jsonc['getNodeValue'] = (...a) => J!.getNodeValue(...a);

export interface CgEntry {
  event: string;
  /** The host's tool matcher for the group. */
  matcher: string;
  command: string;
  /** Seconds the host waits for the hook before going ahead without it. */
  timeout: number;
}

export type Edit = { ok: true; text: string; changed: boolean } | { ok: false; reason: string };

/** `cg hook HOST` after cg's script or binary, for any host of the table. */
const CG_HOOK_COMMAND = new RegExp(
  `(?:^|[\\s/'"])cg(?:\\.js)?['"]?\\s+hook\\s+(?:${HOST_NAMES.join('|')})\\b`,
);

/** A handler command that is cg's hook, in any form an `cg init` wrote (`cg hook claude`, `'/…/cg.js' hook codex`). */
export function isCgHookCommand(command: unknown): boolean {
  return typeof command === 'string' && CG_HOOK_COMMAND.test(command);
}

type Parsed = { root: Node; text: string } | { reason: string };

function parse(text: string): Parsed {
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length > 0 || !root) return { reason: 'not valid JSON; fix it or move it away first' };
  if (root.type !== 'object') return { reason: 'not a JSON object' };
  return { root, text };
}

/** The file's indentation unit: the first indented line after an opening bracket, else 2 spaces. */
function indentUnit(text: string): string {
  return /[{[][ \t]*\r?\n([ \t]+)\S/.exec(text)?.[1] ?? '  ';
}

function lineIndent(text: string, offset: number): string {
  const start = text.lastIndexOf('\n', offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(start, offset))![0];
}

function startsLine(text: string, offset: number): boolean {
  const start = text.lastIndexOf('\n', offset - 1) + 1;
  return text.slice(start, offset).trim() === '';
}

function pretty(value: unknown, unit: string, indent: string): string {
  return JSON.stringify(value, null, unit).replace(/\n/g, `\n${indent}`);
}

/** Inserts a member (key given) or element at the end of the container at path, indented like its siblings. */
function insert(text: string, path: (string | number)[], key: string | undefined, value: unknown): string {
  const tree = parseTree(text)!;
  const container = path.length === 0 ? tree : findNodeAtLocation(tree, path)!;
  const unit = indentUnit(text);
  const children = container.children ?? [];
  const label = key === undefined ? '' : `${JSON.stringify(key)}: `;
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  if (children.length === 0) {
    const parent = lineIndent(text, container.offset);
    const inner = `${parent}${unit}`;
    const body = `${eol}${inner}${label}${pretty(value, unit, inner).replace(/\n/g, eol)}${eol}${parent}`;
    return text.slice(0, container.offset + 1) + body + text.slice(container.offset + container.length - 1);
  }
  const last = children[children.length - 1]!;
  const end = last.offset + last.length;
  if (!startsLine(text, children[0]!.offset)) {
    // A one-line container stays on one line.
    return `${text.slice(0, end)}, ${label}${JSON.stringify(value)}${text.slice(end)}`;
  }
  const inner = lineIndent(text, children[0]!.offset);
  return `${text.slice(0, end)},${eol}${inner}${label}${pretty(value, unit, inner).replace(/\n/g, eol)}${text.slice(end)}`;
}

/**
 * Removes a member or element exactly: with the separator before it (or after it, when it comes
 * first), so removing what insert() added gives back the bytes it was added to.
 */
function remove(text: string, path: (string | number)[]): string {
  const node = findNodeAtLocation(parseTree(text)!, path);
  if (!node) return text;
  const target = node.parent?.type === 'property' ? node.parent : node;
  const container = target.parent!;
  const siblings = container.children ?? [];
  const i = siblings.indexOf(target);
  const end = target.offset + target.length;
  if (i > 0) {
    const prev = siblings[i - 1]!;
    return text.slice(0, prev.offset + prev.length) + text.slice(end);
  }
  if (siblings.length > 1) return text.slice(0, target.offset) + text.slice(siblings[1]!.offset);
  return text.slice(0, container.offset + 1) + text.slice(container.offset + container.length - 1);
}

interface Found {
  event: string;
  group: number;
  handler: number;
  /** Every handler of the group is cg's. */
  whole: boolean;
}

/** cg handlers under the given events, last first (so removing them in order keeps indices valid). */
function cgHandlers(root: Node, events: readonly string[]): Found[] | { reason: string } {
  const hooks = findNodeAtLocation(root, ['hooks']);
  if (!hooks) return [];
  if (hooks.type !== 'object') return { reason: '"hooks" is not an object' };
  const found: Found[] = [];
  for (const event of events) {
    const list = findNodeAtLocation(hooks, [event]);
    if (!list) continue;
    if (list.type !== 'array') return { reason: `"hooks.${event}" is not a list` };
    (list.children ?? []).forEach((group, g) => {
      const handlers = findNodeAtLocation(group, ['hooks']);
      if (handlers?.type !== 'array') return;
      const values = (getNodeValue(handlers) as unknown[]) ?? [];
      const mine = values.flatMap((h, i) => (isCg(h) ? [i] : []));
      for (const i of mine) found.push({ event, group: g, handler: i, whole: mine.length === values.length });
    });
  }
  return found.reverse();
}

function isCg(handler: unknown): boolean {
  return isCgHookCommand(stringAt(handler, 'command'));
}

/** Removes the cg handlers found, then any event list, and the hooks object, left empty. */
function removeAll(text: string, found: readonly Found[]): string {
  let out = text;
  const events = new Set(found.map((f) => f.event));
  const groupsDone = new Set<string>();
  for (const f of found) {
    if (f.whole) {
      const id = `${f.event}/${f.group}`;
      if (!groupsDone.has(id)) out = remove(out, ['hooks', f.event, f.group]);
      groupsDone.add(id);
    } else {
      out = remove(out, ['hooks', f.event, f.group, 'hooks', f.handler]);
    }
  }
  for (const event of events) {
    const list = findNodeAtLocation(parseTree(out)!, ['hooks', event]);
    if (list && (list.children ?? []).length === 0) out = remove(out, ['hooks', event]);
  }
  const hooks = findNodeAtLocation(parseTree(out)!, ['hooks']);
  if (hooks && (hooks.children ?? []).length === 0 && events.size > 0) out = remove(out, ['hooks']);
  return out;
}

function present(root: Node, e: CgEntry): boolean {
  const list = findNodeAtLocation(root, ['hooks', e.event]);
  if (list?.type !== 'array') return false;
  const groups = arrayAt(getNodeValue(list)) ?? [];
  return groups.some(
    (g) =>
      stringAt(g, 'matcher') === e.matcher &&
      (arrayAt(g, 'hooks') ?? []).some(
        (h) => stringAt(h, 'command') === e.command && numberAt(h, 'timeout') === e.timeout,
      ),
  );
}

function group(e: CgEntry): unknown {
  return { matcher: e.matcher, hooks: [{ type: 'command', command: e.command, timeout: e.timeout }] };
}

/**
 * The settings text with cg's entries in place: already-current entries stay, stale cg handlers
 * (legacy events, older command lines) go. A missing or empty file becomes a new document.
 */
export async function installHooks(
  text: string | undefined,
  entries: readonly CgEntry[],
  legacyEvents: readonly string[],
): Promise<Edit> {
  await jsonc();
  if (text === undefined || text.trim() === '') {
    const hooks: Record<string, unknown[]> = {};
    for (const e of entries) {
      hooks[e.event] ??= [];
      hooks[e.event]!.push(group(e));
    }
    return { ok: true, text: `${JSON.stringify({ hooks }, null, 2)}\n`, changed: true };
  }
  const p = parse(text);
  if ('reason' in p) return { ok: false, reason: p.reason };
  const events = [...new Set([...entries.map((e) => e.event), ...legacyEvents])];
  const found = cgHandlers(p.root, events);
  if ('reason' in found) return { ok: false, reason: found.reason };
  const current = entries.every((e) => present(p.root, e)) && found.length === entries.length;
  if (current) return { ok: true, text, changed: false };
  let out = removeAll(text, found);
  for (const e of entries) {
    const root = parseTree(out)!;
    const hooks = findNodeAtLocation(root, ['hooks']);
    if (!hooks) out = insert(out, [], 'hooks', { [e.event]: [group(e)] });
    else if (hooks.type !== 'object') return { ok: false, reason: '"hooks" is not an object' };
    else if (!findNodeAtLocation(hooks, [e.event])) out = insert(out, ['hooks'], e.event, [group(e)]);
    else out = insert(out, ['hooks', e.event], undefined, group(e));
  }
  return { ok: true, text: out, changed: out !== text };
}

/** The settings text without any cg handler under these events. */
export async function uninstallHooks(text: string | undefined, events: readonly string[]): Promise<Edit> {
  await jsonc();
  if (text === undefined) return { ok: true, text: '', changed: false };
  const p = parse(text);
  if ('reason' in p) return { ok: false, reason: p.reason };
  const found = cgHandlers(p.root, events);
  if ('reason' in found) return { ok: false, reason: found.reason };
  if (found.length === 0) return { ok: true, text, changed: false };
  return { ok: true, text: removeAll(text, found), changed: true };
}

/** The value at a path of the settings, or undefined (also for text that does not parse). */
export async function valueAt(text: string, path: (string | number)[]): Promise<unknown> {
  await jsonc();
  const p = parse(text);
  if ('reason' in p) return undefined;
  const node = findNodeAtLocation(p.root, path);
  return node ? getNodeValue(node) : undefined;
}

/** Sets a member of a top-level object (created when missing), keeping every other byte. */
export async function setMember(text: string, object: string, key: string, value: unknown): Promise<Edit> {
  await jsonc();
  const p = parse(text.trim() === '' ? '{}\n' : text);
  if ('reason' in p) return { ok: false, reason: p.reason };
  const container = findNodeAtLocation(p.root, [object]);
  if (container && container.type !== 'object') return { ok: false, reason: `"${object}" is not an object` };
  let out = p.text;
  if (container && findNodeAtLocation(container, [key])) out = remove(out, [object, key]);
  out = findNodeAtLocation(parseTree(out)!, [object])
    ? insert(out, [object], key, value)
    : insert(out, [], object, { [key]: value });
  return { ok: true, text: out, changed: out !== text };
}

/** Removes a member of a top-level object, and the object when that leaves it empty. */
export async function removeMember(text: string, object: string, key: string): Promise<Edit> {
  await jsonc();
  const p = parse(text);
  if ('reason' in p) return { ok: false, reason: p.reason };
  const container = findNodeAtLocation(p.root, [object]);
  if (!container || !findNodeAtLocation(container, [key])) return { ok: true, text, changed: false };
  let out = remove(text, [object, key]);
  const left = findNodeAtLocation(parseTree(out)!, [object]);
  if (left && (left.children ?? []).length === 0) out = remove(out, [object]);
  return { ok: true, text: out, changed: true };
}

/** Whether a settings text holds nothing at all (`{}`, whitespace and comments aside). */
export async function isEmptyDocument(text: string): Promise<boolean> {
  await jsonc();
  const p = parse(text);
  return !('reason' in p) && (p.root.children ?? []).length === 0;
}
