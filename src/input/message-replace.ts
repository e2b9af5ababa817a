/**
 * Whether a proposed replacement of messages [from, to) by one summary message leaves a request
 * the provider still accepts and the agent can still follow: the first message (the task) and the
 * latest one stay, the kept tail does not open with a message bound to one that was dropped (a tool
 * result without its call), and there is one replacement per run. (What its text may say about
 * markers is the pipeline's check, as for every component's text.)
 */
import type { InputFormat, MessageView, StructuralEdit } from './transcript.js';

/** The JSON of the message that takes a replaced span's place: a plain user message in its format's shape. */
export function replacementMessage(text: string, format?: InputFormat): string {
  if (format === 'gemini') return JSON.stringify({ role: 'user', parts: [{ text }] });
  return JSON.stringify({ role: 'user', content: text });
}

/**
 * Whether the kept messages may start at message i, just after a summary (a user message): it must
 * not answer a dropped message, and with extended thinking in use the turn the summary opens must
 * begin as Anthropic requires — with a real user message or an assistant message that starts with
 * thinking.
 */
export function canOpenTail(messages: readonly MessageView[], i: number): boolean {
  const m = messages[i];
  if (!m || m.boundToPrevious) return false;
  if (m.role === 'user' || m.startsWithThinking) return true;
  return !messages.some((x) => x.startsWithThinking);
}

export type ReplaceEdit = Extract<StructuralEdit, { kind: 'replace_messages' }>;
export type ReplaceVerdict = { ok: true; edit: ReplaceEdit } | { ok: false; reason: string };

export function judgeReplace(
  proposed: unknown,
  messages: readonly MessageView[],
  accepted: readonly StructuralEdit[],
): ReplaceVerdict {
  const e = proposed as Partial<ReplaceEdit> | undefined;
  const { from, to, text } = e ?? {};
  if (e?.kind !== 'replace_messages' || !Number.isInteger(from) || !Number.isInteger(to))
    return { ok: false, reason: 'unknown structural edit' };
  if (typeof text !== 'string') return { ok: false, reason: 'replacement without text' };
  const n = messages.length;
  if (from! < 1 || to! <= from! || to! >= n)
    return { ok: false, reason: `messages ${from}..${to} do not leave the first and the latest in place` };
  if (messages[to!]?.boundToPrevious)
    return { ok: false, reason: `message ${to} answers one that would be dropped` };
  if (!canOpenTail(messages, to!))
    return {
      ok: false,
      reason: `message ${to} cannot open a turn (extended thinking needs a thinking block first)`,
    };
  if (messages[from!]?.boundToPrevious)
    return { ok: false, reason: `message ${from} answers a kept one and cannot be dropped` };
  if (accepted.some((a) => a.kind === 'replace_messages'))
    return { ok: false, reason: 'messages were already replaced in this run' };
  const edit: ReplaceEdit = { kind: 'replace_messages', from: from!, to: to!, text };
  if (typeof e.note === 'string') edit.note = e.note;
  return { ok: true, edit };
}
