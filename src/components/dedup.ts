/**
 * dedup — lossy, transcript: a tool output identical to an earlier one in the same transcript
 * becomes `[identical to an earlier tool output] <<cg:KEY>>` + hint (KEY gives its own original back).
 * The later copy goes, never the earlier: the earlier one is already in the provider's prompt cache
 * and the model has read it there. Outputs under min_tokens stay (a placeholder saves too little).
 */
import { MARKER_SLOT, type Outcome, type TranscriptComponent } from '../component.js';
import { type ConfigOf, integer, section } from '../config/fields.js';

/** The settings, declared once: parser, defaults and the reference tables (scripts/docs.mjs). */
export const CONFIG = section({ min_tokens: integer().or(100).doc('smaller repeated outputs stay') });
export type DedupConfig = ConfigOf<typeof CONFIG>;

export const dedup: TranscriptComponent<DedupConfig> = {
  name: 'dedup',
  lossy: true,
  scope: 'transcript',
  summary: 'Replace a tool output identical to an earlier one by a reference; the original is stashed',
  defaults: CONFIG.defaults,
  parseConfig: CONFIG.parse,
  floorTokens: (cfg) => cfg.min_tokens,

  async run(outputs, cfg, ctx) {
    const out = new Map<string, Outcome>();
    const first = new Map<string, string>();
    for (const o of outputs) {
      if (o.settled) continue;
      const earlier = first.get(o.text);
      if (earlier === undefined) {
        first.set(o.text, o.id);
        continue;
      }
      if (!o.mayChange || o.text === '') continue;
      if (cfg.min_tokens > 0 && !(await ctx.tokens.exceeds(o.text, cfg.min_tokens - 1))) continue;
      out.set(o.id, {
        kind: 'rewrite',
        text: `[identical to an earlier tool output] ${MARKER_SLOT}`,
        loss: 'whole',
        note: `same as ${earlier}`,
      });
    }
    return out;
  },
};
