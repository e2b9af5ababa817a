/**
 * phi_evict — lossy, transcript: when the tool outputs of a transcript hold more than budget_tokens
 * tokens, outputs are evicted lowest Φ first until the total fits, each becoming
 * `[tool output evicted to fit the context budget] <<cg:KEY>>` + hint. The newest output never is.
 *
 *   Φ = w_R·relevance + w_H·recency − w_C·cost − w_D·redundancy
 *   relevance  share of the last user message's keywords that the output contains (0..1)
 *   recency    position, oldest 1/n … newest 1
 *   cost       the output's share of all tool tokens
 *   redundancy 1 when an earlier output has the same text, else 0
 *
 * Weights come from a profile: balanced {.40,.20,.30,.10}, aggressive {.30,.10,.45,.15},
 * conservative {.45,.20,.05,.05}. Ties go to the older output, so the choice is deterministic.
 */
import { MARKER_SLOT, type Outcome, type TranscriptComponent } from '../component.js';
import { type ConfigOf, integer, oneOf, section } from '../config/fields.js';
import { keywords } from '../input/keywords.js';

export type PhiProfile = 'balanced' | 'aggressive' | 'conservative';
const PROFILES: readonly PhiProfile[] = ['balanced', 'aggressive', 'conservative'];

/** [w_R, w_H, w_C, w_D] */
export const WEIGHTS: Record<PhiProfile, readonly [number, number, number, number]> = {
  balanced: [0.4, 0.2, 0.3, 0.1],
  aggressive: [0.3, 0.1, 0.45, 0.15],
  conservative: [0.45, 0.2, 0.05, 0.05],
};

/** The settings, declared once: parser, defaults and the reference tables (scripts/docs.mjs). */
export const CONFIG = section({
  budget_tokens: integer().or(120_000).doc('tool-output tokens past which the lowest Φ are evicted'),
  profile: oneOf(PROFILES).or('balanced').doc('weights: `balanced`, `aggressive` or `conservative`'),
});
export type PhiEvictConfig = ConfigOf<typeof CONFIG>;

/** What a placeholder costs, marker and hint included (an upper bound, for the budget arithmetic). */
const PLACEHOLDER_TOKENS = 40;

export const phi_evict: TranscriptComponent<PhiEvictConfig> = {
  name: 'phi_evict',
  lossy: true,
  scope: 'transcript',
  summary: 'Over a token budget, evict the tool outputs of lowest value (Φ) first; originals are stashed',
  defaults: CONFIG.defaults,
  parseConfig: CONFIG.parse,
  // What it evicts costs more than the placeholder that takes its place.
  floorTokens: () => PLACEHOLDER_TOKENS + 1,

  async run(outputs, cfg, ctx) {
    const out = new Map<string, Outcome>();
    const n = outputs.length;
    if (n < 2) return out;
    const tokens: number[] = [];
    let total = 0;
    for (const o of outputs) {
      const t = await ctx.tokens.count(o.text);
      tokens.push(t);
      total += t;
    }
    if (total <= cfg.budget_tokens) return out;

    const [wR, wH, wC, wD] = WEIGHTS[cfg.profile];
    const wanted = keywords(lastUserText(outputs, ctx.messages));
    const seen = new Set<string>();
    const scored: { i: number; phi: number }[] = [];
    outputs.forEach((o, i) => {
      const redundancy = seen.has(o.text) ? 1 : 0;
      seen.add(o.text);
      // The newest output is what the model is about to act on; what the gates keep cannot go.
      if (i === n - 1 || !o.mayChange || tokens[i]! <= PLACEHOLDER_TOKENS) return;
      let shared = 0;
      if (wanted.size > 0) for (const k of keywords(o.text)) if (wanted.has(k)) shared++;
      const relevance = wanted.size > 0 ? shared / wanted.size : 0;
      const recency = (i + 1) / n;
      const cost = tokens[i]! / total;
      scored.push({ i, phi: wR * relevance + wH * recency - wC * cost - wD * redundancy });
    });
    scored.sort((a, b) => a.phi - b.phi || a.i - b.i);
    for (const { i, phi } of scored) {
      if (total <= cfg.budget_tokens) break;
      total -= tokens[i]! - PLACEHOLDER_TOKENS;
      out.set(outputs[i]!.id, {
        kind: 'rewrite',
        text: `[tool output evicted to fit the context budget] ${MARKER_SLOT}`,
        loss: 'whole',
        note: `Φ ${phi.toFixed(3)}`,
      });
    }
    return out;
  },
};

/** The last message a person wrote: a user message that does not only carry tool results. */
function lastUserText(
  outputs: readonly { messageIndex: number }[],
  messages: readonly { role: string; text: string }[],
): string {
  const carriers = new Set(outputs.map((o) => o.messageIndex));
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === 'user' && !carriers.has(i) && m.text.trim() !== '') return m.text;
  }
  return '';
}
