/**
 * mask — lossy, transcript: keeps the newest keep_recent tool outputs (and every output of the newest
 * tool-result message, which the model has not read yet); each older output of at least min_tokens
 * becomes `[older tool output masked] <<cg:KEY>>` + hint. Position alone decides, so the same
 * transcript always masks the same outputs.
 *
 * In a replayed session (src/session) an output already sent changes only when the pipeline
 * flushes a batch: masks of sent outputs are held back until together they save batch_tokens, so
 * a provider's prompt cache breaks once per batch instead of on every turn.
 */
import { MARKER_SLOT, type Outcome, type TranscriptComponent } from '../component.js';
import { type ConfigOf, integer, section } from '../config/fields.js';

/** The settings, declared once: parser, defaults and the reference tables (scripts/docs.mjs). */
export const CONFIG = section({
  /** How many of the newest tool outputs stay whole. */
  keep_recent: integer().or(3).doc('newest tool outputs that stay whole'),
  /** Older outputs under this many tokens stay (a placeholder would barely be smaller). */
  min_tokens: integer().or(100).doc('smaller older outputs stay'),
  /** With a session: masks of already-sent outputs wait until they save this many tokens together. */
  batch_tokens: integer().or(10_000).doc('in a session, masks wait until together they save this many'),
});
export type MaskConfig = ConfigOf<typeof CONFIG>;

export const mask: TranscriptComponent<MaskConfig> = {
  name: 'mask',
  lossy: true,
  scope: 'transcript',
  summary: 'Mask older tool outputs (the newest keep_recent stay); originals are stashed',
  defaults: CONFIG.defaults,
  parseConfig: CONFIG.parse,

  batchTokens: (cfg) => cfg.batch_tokens,
  floorTokens: (cfg) => cfg.min_tokens,

  async run(outputs, cfg, ctx) {
    const out = new Map<string, Outcome>();
    if (outputs.length === 0) return out;
    const newestMessage = outputs[outputs.length - 1]!.messageIndex;
    const firstKept = outputs.length - cfg.keep_recent;
    for (let i = 0; i < outputs.length; i++) {
      const o = outputs[i]!;
      if (i >= firstKept || o.messageIndex === newestMessage || !o.mayChange) continue;
      // tokens ≥ min_tokens, from byte bounds when they decide.
      if (cfg.min_tokens > 0 && !(await ctx.tokens.exceeds(o.text, cfg.min_tokens - 1))) continue;
      const newer = outputs.length - 1 - i;
      out.set(o.id, {
        kind: 'rewrite',
        text: `[older tool output masked] ${MARKER_SLOT}`,
        loss: 'whole',
        note: `${newer} newer output${newer === 1 ? '' : 's'}`,
      });
    }
    return out;
  },
};
