/**
 * extract's model strategy (`code`; `rlm` maps to it for now): the model writes
 * `filter(text, query)` for one large output, the program runs in the QuickJS sandbox, and its
 * result is accepted only when it is an in-order subsequence of the output's words and single
 * characters (it deleted, never invented — not even a word spelled from letters picked here and
 * there) — or, with `rewrite: true`, only when it is shorter. It is tried only for a large
 * output in a large request (the triggers), and its result — or its failure — is memoised per
 * session by content, so the same output on a later turn gets the same bytes with no model call.
 *
 * Returns undefined whenever the strategy does not apply or fails; the caller then falls back to
 * the deterministic strategy. `why` says which, for --verbose.
 */

import type { OutputView, RunContext } from '../component.js';
import { keyOf } from '../store/keys.js';
import type { ModelAccess } from './access.js';

export interface CodeStrategyConfig {
  rewrite: boolean;
  min_output_tokens: number;
  min_request_tokens: number;
  min_messages: number;
  max_model_chars: number;
  program_timeout_ms: number;
}

export type CodeResult = { ok: true; text: string; note: string } | { ok: false; why: string };

/**
 * A memo entry: the accepted text and the model that wrote its filter (the note names it, and the
 * bytes must not change on reuse), or the reason the strategy fell back (so it is not retried).
 */
type Memo = { r: string; by: string } | { f: string };

export async function codeStrategy(
  o: OutputView,
  cfg: CodeStrategyConfig,
  ctx: RunContext,
): Promise<CodeResult> {
  const gate = await triggerGate(o.text, cfg, ctx);
  if (gate) return { ok: false, why: gate };
  const key = `extract:${cfg.rewrite ? 'rewrite:' : ''}${keyOf(o.bytes ?? o.text)}`;
  const seen = readMemo(ctx.memo?.get(key));
  if (seen) return 'r' in seen ? accepted(o.text, seen.r, seen.by) : { ok: false, why: seen.f };
  if (!isNew(o, ctx)) return { ok: false, why: 'not an output of the newest turn' };
  const model = ctx.model;
  if (!model?.available) return { ok: false, why: `no model (${model?.reason ?? 'none given'})` };

  const outcome = await askAndRun(o, cfg, ctx, model);
  // A model's failure is remembered as well: retrying it every turn would cost a call each time and
  // change the bytes the provider's cache has seen.
  const entry: Memo = 'text' in outcome ? { r: outcome.text, by: model.label } : { f: outcome.why };
  ctx.memo?.set(key, JSON.stringify(entry));
  return 'text' in outcome ? accepted(o.text, outcome.text, model.label) : { ok: false, why: outcome.why };
}

async function askAndRun(
  o: OutputView,
  cfg: CodeStrategyConfig,
  ctx: RunContext,
  model: Extract<ModelAccess, { available: true }>,
): Promise<{ text: string } | { why: string }> {
  const { filterPrompt } = await import('./filter-prompt.js');
  const query = ctx.query ?? '';
  const prompt = filterPrompt({
    text: o.text,
    query,
    ...(o.command !== undefined ? { command: o.command } : {}),
    maxChars: cfg.max_model_chars,
    rewrite: cfg.rewrite,
  });
  const reply = await model.complete(prompt);
  if (!reply.ok) return { why: `model failed: ${reply.reason}` };
  const { extractProgram } = await import('./program.js');
  const program = extractProgram(reply.text);
  if (program === undefined) return { why: 'the model wrote no filter function' };
  const { runFilterProgram } = await import('./sandbox.js');
  const run = await runFilterProgram(program, o.text, query, { timeoutMs: cfg.program_timeout_ms });
  if (!run.ok) return { why: run.reason };
  const result = run.text;
  if (result.trim() === '') return { why: 'the filter kept nothing' };
  if (result.length >= o.text.length) return { why: 'the filter removed nothing' };
  if (!cfg.rewrite) {
    const { isTokenSubsequence } = await import('./subsequence.js');
    if (!isTokenSubsequence(result, o.text))
      return { why: 'the filter added or changed text (not a subsequence of its words)' };
  }
  return { text: result };
}

function accepted(input: string, result: string, by: string): CodeResult {
  return {
    ok: true,
    text: result,
    note: `model filter (${by}) kept ${result.length} of ${input.length} characters`,
  };
}

/** Why the model is not asked about this output (it, or the request, is too small), if so. */
async function triggerGate(
  text: string,
  cfg: CodeStrategyConfig,
  ctx: RunContext,
): Promise<string | undefined> {
  if (!(await ctx.tokens.exceeds(text, cfg.min_output_tokens - 1)))
    return `output under min_output_tokens (${cfg.min_output_tokens})`;
  // Raw text is a request of one output: the message count does not apply to it.
  if (ctx.format === 'text') return undefined;
  if (ctx.messages.length < cfg.min_messages) return `fewer than min_messages (${cfg.min_messages}) messages`;
  const request = `${ctx.system ?? ''}\n${ctx.messages.map((m) => m.text).join('\n')}`;
  if (!(await ctx.tokens.exceeds(request, cfg.min_request_tokens - 1)))
    return `request under min_request_tokens (${cfg.min_request_tokens})`;
  return undefined;
}

/**
 * Whether the output belongs to the newest turn (after the last assistant message). Older ones were
 * decided when they were new, and are replayed as sent; a conversation first seen mid-way must not
 * cost a model call per old output.
 */
function isNew(o: OutputView, ctx: RunContext): boolean {
  return ctx.format === 'text' || o.messageIndex > ctx.messages.findLastIndex((m) => m.role === 'assistant');
}

function readMemo(raw: string | undefined): Memo | undefined {
  if (raw === undefined) return undefined;
  try {
    const m = JSON.parse(raw) as Partial<{ r: unknown; by: unknown; f: unknown }>;
    if (typeof m.r === 'string' && typeof m.by === 'string') return { r: m.r, by: m.by };
    if (typeof m.f === 'string') return { f: m.f };
  } catch {
    // A corrupt entry is as good as none.
  }
  return undefined;
}
