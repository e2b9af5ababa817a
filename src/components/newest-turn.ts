/**
 * Which tool outputs belong to a request's newest turn: the results after the last assistant
 * message (the tool calls the model just made). Older ones were decided when they were new and are
 * replayed as sent in a session; a conversation first seen mid-way (a proxy started late, a lost
 * session record) must not have every old output rewritten at once, which would change bytes the
 * provider has cached. Raw text is one output, the newest.
 */
import type { MessageView, OutputView, RunContext } from '../component.js';

const lastAssistant = new WeakMap<readonly MessageView[], number>();

export function inNewestTurn(o: Pick<OutputView, 'messageIndex'>, ctx: RunContext): boolean {
  if (ctx.format === 'text') return true;
  let at = lastAssistant.get(ctx.messages);
  if (at === undefined) {
    at = ctx.messages.findLastIndex((m) => m.role === 'assistant');
    lastAssistant.set(ctx.messages, at);
  }
  return o.messageIndex > at;
}
