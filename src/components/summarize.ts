/**
 * summarize — lossy, transcript, model-assisted: once a request is large (trigger), the messages
 * between the task (the first user message, and any system messages before it) and the last
 * keep_last messages are replaced by one user message
 *
 *   === History Summary ===
 *   <the model's summary>
 *   [N earlier messages summarised] <<cg:KEY>> [full output: cg expand KEY]
 *
 * whose marker gives back the replaced messages' exact bytes. Retained messages stay byte-identical.
 * The cut never opens the kept tail with a message bound to a dropped one (a tool result).
 *
 * Checkpoint: the summary is kept in the session memo and reused verbatim while the messages it
 * covers are unchanged and the un-summarised stretch after it stays under resummarize_tokens; past
 * that it rolls forward (the model gets the previous summary and only the newer messages), so the
 * summary message changes once per roll, not on every turn. Without a model it does nothing.
 */
import { type EditProposal, MARKER_SLOT, type MessageView, type TranscriptComponent } from '../component.js';
import { boolean, type ConfigOf, integer, oneOf, section } from '../config/fields.js';
import { canOpenTail } from '../input/message-replace.js';
import type { SummaryLevel } from '../llm/summary-prompt.js';
import { judgeReplacement } from '../pipeline/structural-edits.js';
import { keyOf } from '../store/keys.js';

const SUMMARY_LEVELS: readonly SummaryLevel[] = ['concise', 'regular', 'highly_detailed'];

/** The settings, declared once: parser, defaults and the reference tables (scripts/docs.mjs). */
export const CONFIG = section({
  keep_last: integer({ min: 1 }).or(3).doc('newest messages kept as they are'),
  summary_level: oneOf(SUMMARY_LEVELS).or('regular').doc('`concise`, `regular` or `highly_detailed`'),
  /** false: tool outputs are masked in what the model sees. */
  include_tool_calls: boolean().or(false).doc('show tool outputs to the model (false: masked)'),
  /** The span must hold at least this many tokens. */
  min_tokens: integer().or(500).doc('the span summarised holds at least this many tokens'),
  trigger: section({
    min_request_tokens: integer().or(8000).doc('request tokens before a summary is made'),
    min_messages: integer().or(8).doc('messages before a summary is made'),
  }),
  resummarize_tokens: integer().or(6000).doc('newer tokens before the summary rolls forward'),
  /** What the model sees is cut to about this many characters. */
  max_input_chars: integer({ min: 2000 }).or(120_000).doc('what the model sees, cut to about this'),
});
export type SummarizeConfig = ConfigOf<typeof CONFIG>;

export const SUMMARY_HEADER = '=== History Summary ===';
const MEMO_KEY = 'summarize';

/** What the memo keeps between turns. */
interface Checkpoint {
  from: number;
  to: number;
  /** keyOf the covered messages' roles and texts: a changed history invalidates the checkpoint. */
  h: string;
  summary: string;
}

export const summarize: TranscriptComponent<SummarizeConfig> = {
  name: 'summarize',
  lossy: true,
  scope: 'transcript',
  keepsSessionState: () => true,
  summary:
    'Replace the stale middle of a long conversation by a model-written summary; the messages are stashed',
  defaults: CONFIG.defaults,
  parseConfig: CONFIG.parse,

  deadlineMs: (_cfg, ctx) => (ctx.model?.available ? ctx.model.budgetMs + 10_000 : 0),

  // Its work is the structural edit below; it never rewrites an output's text.
  run: () => new Map(),
  floorTokens: () => Number.POSITIVE_INFINITY,

  async edits(outputs, cfg, ctx): Promise<EditProposal[]> {
    const skip = (gate: string): EditProposal[] => [{ kind: 'skip', gate }];
    const msgs = ctx.messages;
    if (ctx.format === 'text') return skip('raw text has no conversation');
    // cg's own output fed back in: what it summarised stays summarised (cg(cg(x)) == cg(x)).
    if (msgs.some((m) => m.role === 'user' && m.text.startsWith(SUMMARY_HEADER)))
      return skip('already holds a cg summary');
    const task = msgs.findIndex((m) => m.role === 'user');
    const from = Math.max(task, 0) + 1;
    let end = msgs.length - cfg.keep_last;
    while (end > from && !canOpenTail(msgs, end)) end--;
    if (end <= from) return skip('nothing between the task and the last messages');

    const text = (a: number, b: number) =>
      msgs
        .slice(a, b)
        .map((m) => m.text)
        .join('\n');
    const cp = readCheckpoint(ctx.memo?.get(MEMO_KEY));
    const valid = cp && cp.from === from && cp.to <= end && cp.h === coverKey(msgs, from, cp.to);
    if (valid) {
      const pending = text(cp.to, end);
      if (cp.to === end || !(await ctx.tokens.exceeds(pending, cfg.resummarize_tokens - 1)))
        return [replace(from, cp.to, cp.summary, 'summary reused from the checkpoint')];
    } else {
      if (msgs.length < cfg.trigger.min_messages)
        return skip(`fewer than ${cfg.trigger.min_messages} messages`);
      const whole = `${text(0, msgs.length)}\n${ctx.system ?? ''}`;
      if (!(await ctx.tokens.exceeds(whole, cfg.trigger.min_request_tokens - 1)))
        return skip(`request under ${cfg.trigger.min_request_tokens} tokens`);
      if (!(await ctx.tokens.exceeds(text(from, end), cfg.min_tokens - 1)))
        return skip(`span under ${cfg.min_tokens} tokens`);
    }
    const rolling = valid ? cp : undefined;
    // A roll that cannot happen keeps the summary there is: dropping it would send the whole history
    // again and break the provider's cache as well.
    const failed = (why: string): EditProposal[] =>
      rolling ? [replace(from, rolling.to, rolling.summary, `summary reused (${why})`)] : skip(why);
    if (!ctx.model?.available) return failed(`no model (${ctx.model?.reason ?? 'none given'})`);

    // Loaded only when a summary is due: most runs never get here.
    const { summaryPrompt } = await import('../llm/summary-prompt.js');
    const prompt = summaryPrompt({
      messages: msgs,
      outputs,
      task: Math.max(0, task),
      from: rolling ? rolling.to : from,
      to: end,
      ...(rolling ? { previous: rolling.summary } : {}),
      recent: end,
      level: cfg.summary_level,
      includeToolOutputs: cfg.include_tool_calls,
      maxChars: cfg.max_input_chars,
    });
    const reply = await ctx.model.complete(prompt);
    if (!reply.ok) return failed(`model failed: ${reply.reason}`);
    const summary = reply.text.trim();
    if (summary === '') return failed('model returned an empty summary');
    const how = rolling ? `summary rolled forward by ${ctx.model.label}` : `summarised by ${ctx.model.label}`;
    const proposal = replace(from, end, summary, how);
    // Checked here as the pipeline will, so a summary it would refuse (a garbled marker) is never
    // checkpointed and reused turn after turn.
    const inSpan = outputs.filter((o) => o.messageIndex >= from && o.messageIndex < end);
    const verdict = judgeReplacement(proposal, msgs, [], [text(from, end), ...inSpan.map((o) => o.text)]);
    if (!verdict.ok) return failed(`summary refused: ${verdict.reason}`);
    const checkpoint: Checkpoint = { from, to: end, h: coverKey(msgs, from, end), summary };
    ctx.memo?.set(MEMO_KEY, JSON.stringify(checkpoint));
    return [proposal];
  },
};

function replace(from: number, to: number, summary: string, how: string): EditProposal {
  const n = to - from;
  return {
    kind: 'replace_messages',
    from,
    to,
    text: `${SUMMARY_HEADER}\n${summary}\n[${n} earlier message${n === 1 ? '' : 's'} summarised] ${MARKER_SLOT}`,
    note: `messages ${from}..${to - 1} ${how}`,
  };
}

function coverKey(msgs: readonly MessageView[], from: number, to: number): string {
  return keyOf(JSON.stringify(msgs.slice(from, to).map((m) => [m.role, m.text])));
}

function readCheckpoint(raw: string | undefined): Checkpoint | undefined {
  if (raw === undefined) return undefined;
  try {
    const c = JSON.parse(raw) as Partial<Checkpoint>;
    const ints = [c.from, c.to].every((v) => Number.isInteger(v));
    return ints && typeof c.h === 'string' && typeof c.summary === 'string' ? (c as Checkpoint) : undefined;
  } catch {
    return undefined;
  }
}
