/**
 * Structural edits for the pipeline: a transcript component proposes them (edits()), and this judges
 * each against the body and the edits already taken. A cache breakpoint is lossless: it needs a
 * block that can take it, and writing it must add that block's cache_control and nothing else. A replacement of messages by one message (a summary) is lossy: the span's
 * exact input bytes are stashed before its marker is written, it is kept only when it has fewer
 * tokens than the span, and the outputs inside it are retired ("gone") for every later stage.
 */
import { now } from '../clock.js';
import { type Component, MARKER_SLOT, type ReplaceProposal, type RunContext } from '../component.js';
import { judgeEdits } from '../input/cache-breakpoints.js';
import { judgeReplace, type ReplaceVerdict, replacementMessage } from '../input/message-replace.js';
import type { MessageView, StructuralEdit, ToolOutput, Transcript } from '../input/transcript.js';
import { keyOf } from '../store/keys.js';
import { hint, marker } from '../store/marker.js';
import type { Store } from '../store/store.js';
import { byteLength, type Tokens } from '../tokens.js';
import { guarded, writtenMarkerProblem } from './component-calls.js';
import { base, type EventAction, type PipelineEvent } from './event.js';
import { unprovenBreakpoint } from './lossless.js';
import { stash } from './stash.js';

/** What of a pipeline slot the edits see and change. */
export interface EditSlot {
  output: ToolOutput;
  current: string;
  gone: boolean;
}

/**
 * What edits() sees of an output: the output as read with its current text. Made once per output
 * and text and re-used by later stages and turns (a long session has tens of thousands; a component
 * never changes what it is given).
 */
const views = new WeakMap<ToolOutput, ToolOutput>();

function viewOf(s: EditSlot): ToolOutput {
  let v = views.get(s.output);
  if (v?.text !== s.current) {
    v = { ...s.output, text: s.current };
    views.set(s.output, v);
  }
  return v;
}

export interface EditEnv {
  t: Transcript;
  ctx: RunContext;
  slots: EditSlot[];
  /** Edits taken so far (earlier stages included); accepted ones are appended. */
  edits: StructuralEdit[];
  /** Told when outputs were retired (gone): what the run keeps of its settled slots is stale. */
  retired?(): void;
  emit(e: PipelineEvent): void;
  canStash(): Promise<boolean>;
  store: Store | null;
  tokens: Tokens;
  template: string;
  timeoutMs: number;
}

/** Asks a transcript component for structural edits and keeps those the body can take. */
export async function structuralEdits(component: Component, config: unknown, env: EditEnv): Promise<void> {
  const { t, ctx, slots, edits, emit, timeoutMs } = env;
  if (component.scope !== 'transcript' || !component.edits) return;
  const views: ToolOutput[] = [];
  if (!component.editsFromMessages) for (const s of slots) if (!s.gone) views.push(viewOf(s));
  const edit = component.edits.bind(component);
  const result = await guarded(() => edit(views, config, ctx), timeoutMs);
  if (result.kind === 'error') return emit(base(component.name, '*', 'fail', 0, 0, result.message));
  const list: unknown = result.value;
  if (!Array.isArray(list))
    return emit(base(component.name, '*', 'fail', 0, 0, 'edits() did not return a list'));
  const kindOf = (e: unknown) => (e as { kind?: unknown } | undefined)?.kind;
  for (const e of list) {
    const gate = (e as { gate?: unknown }).gate;
    if (kindOf(e) === 'skip')
      emit(base(component.name, '*', 'skip', 0, 0, typeof gate === 'string' ? gate : 'skipped'));
  }
  const replaces = list.filter((e) => kindOf(e) === 'replace_messages');
  const others = list.filter((e) => kindOf(e) !== 'replace_messages' && kindOf(e) !== 'skip');
  const replaced = (i: number) => edits.some((e) => e.kind === 'replace_messages' && i >= e.from && i < e.to);
  for (const v of judgeEdits(others, t.messages, ctx.cacheBreakpoints ?? 0, edits)) {
    if (!v.ok || replaced(v.edit.messageIndex)) {
      emit(base(component.name, '*', 'skip', 0, 0, v.ok ? 'message was replaced by a summary' : v.reason));
      continue;
    }
    // Lossless claims are checked, not trusted: writing it may add the breakpoint and nothing else.
    const unproven = unprovenBreakpoint(t, v.edit);
    if (unproven) {
      emit(base(component.name, '*', 'revert', 0, 0, `not proven lossless: ${unproven}`));
      continue;
    }
    edits.push(v.edit);
    const note = `cache breakpoint on message ${v.edit.messageIndex}`;
    emit({ ...base(component.name, '*', 'rewrite', 0, 0), note });
  }
  for (const proposed of replaces) await replaceMessages(component, proposed, env);
}

/**
 * Whether a replacement of messages may be taken: the body's structure allows it (judgeReplace) and
 * its text has exactly one marker slot and no marker the replaced messages (`spanTexts`, as read and
 * as rewritten so far) did not already carry.
 */
export function judgeReplacement(
  proposed: unknown,
  messages: readonly MessageView[],
  accepted: readonly StructuralEdit[],
  spanTexts: Iterable<string>,
): ReplaceVerdict {
  const v = judgeReplace(proposed, messages, accepted);
  if (!v.ok) return v;
  const problem = writtenMarkerProblem(v.edit.text, 'exactly one', spanTexts);
  return problem ? { ok: false, reason: problem } : v;
}

function isMemoEntry(m: unknown): m is { key: string; value: string } {
  const e = m as { key?: unknown; value?: unknown } | undefined;
  return typeof e?.key === 'string' && typeof e.value === 'string';
}

/**
 * A span of messages replaced by one message (a summary): lossy, so the span's exact input bytes
 * are stashed first and the marker written into the new message; kept only when the new message
 * has fewer tokens than the span it replaces.
 */
async function replaceMessages(component: Component, proposed: unknown, env: EditEnv): Promise<void> {
  const { t, slots, edits, emit, template } = env;
  const p = proposed as Partial<ReplaceProposal>;
  const id = `@messages:${p.from}-${p.to}`;
  const skip = (reason: string, action: EventAction = 'skip') =>
    emit(base(component.name, id, action, 0, 0, reason));
  if (!component.lossy) return skip('a lossless component cannot replace messages', 'fail');
  const inSpan = (s: EditSlot) => s.output.messageIndex >= p.from! && s.output.messageIndex < p.to!;
  const original = typeof p.from === 'number' ? t.messageSpan?.(p.from, p.to ?? p.from) : undefined;
  const spanTexts = [original ?? '', ...slots.filter(inSpan).map((s) => s.current)];
  const v = judgeReplacement(proposed, t.messages, edits, spanTexts);
  if (!v.ok) {
    skip(v.reason);
    return p.otherwise ? replaceMessages(component, p.otherwise, env) : undefined;
  }
  // What the component keeps for a replacement it may take (summarize's checkpoint).
  if (isMemoEntry(p.remember)) env.ctx.memo?.set(p.remember.key, p.remember.value);
  if (original === undefined) return skip(`a ${t.format} body cannot have its messages replaced`);
  if (!(await env.canStash())) return skip('store not writable: lossy components are off');
  const started = now();
  const key = keyOf(original);
  const text = v.edit.text.replace(MARKER_SLOT, () => marker(key) + hint(template, key));
  const message = replacementMessage(text, t.format);
  const bytesIn = byteLength(original);
  const report = (action: EventAction, reason?: string, extra: Partial<PipelineEvent> = {}) =>
    emit({
      ...base(component.name, id, action, bytesIn, bytesIn, reason),
      ms: now() - started,
      ...extra,
    });
  if (!(await env.tokens.fewer(message, original)))
    return report('revert', 'not fewer tokens than the messages it replaces', {
      bytesOut: byteLength(message),
    });
  const stashed = await stash(env.store!, original);
  if (!stashed.ok) return report('revert', `could not stash the messages (${stashed.why})`);
  // Breakpoints already placed on replaced messages go with them.
  for (let i = edits.length - 1; i >= 0; i--) {
    const e = edits[i]!;
    if (e.kind === 'cache_breakpoint' && e.messageIndex >= v.edit.from && e.messageIndex < v.edit.to)
      edits.splice(i, 1);
  }
  edits.push({ ...v.edit, text });
  for (const s of slots) if (inSpan(s)) s.gone = true;
  env.retired?.();
  report('rewrite', undefined, {
    before: original,
    after: message,
    bytesOut: byteLength(message),
    loss: 'whole',
    key,
    note: v.edit.note ?? `messages ${v.edit.from}..${v.edit.to - 1} replaced`,
  });
}
