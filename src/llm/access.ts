/**
 * The model as components see it (ModelAccess): resolved once per run from the config's `model:`
 * section, the environment and the incoming request, or the reason there is none. The HTTP client
 * is imported only when a component actually asks, so runs that never call a model never load it.
 */
import type { InputFormat } from '../input/transcript.js';
import { type ModelConfig, resolveEndpoint } from './endpoint.js';

/** A model a component may ask, or why there is none (the component then degrades quietly). */
export type ModelAccess =
  | {
      available: true;
      /** Which model answers ("openai:gpt-4.1-mini"), for notes; never the key. */
      label: string;
      /** The longest one complete() can take, its retry included. */
      budgetMs: number;
      complete(req: {
        system: string;
        prompt: string;
        maxTokens?: number;
      }): Promise<{ ok: true; text: string } | { ok: false; reason: string }>;
    }
  | { available: false; reason: string };

export function modelAccess(
  cfg: ModelConfig,
  incoming: { format: InputFormat; model?: string },
  env: NodeJS.ProcessEnv,
): ModelAccess {
  const r = resolveEndpoint(cfg, incoming, env);
  if (!r.ok) return { available: false, reason: r.reason };
  const { endpoint } = r;
  return {
    available: true,
    label: `${endpoint.api}:${endpoint.model}`,
    // Two attempts and the backoff between them (Retry-After is capped at 2 s).
    budgetMs: 2 * endpoint.timeoutMs + 2000,
    async complete(req) {
      const { complete } = await import('./client.js');
      // model.max_output_tokens caps what any component asks for.
      const maxTokens = Math.min(req.maxTokens ?? endpoint.maxOutputTokens, endpoint.maxOutputTokens);
      const res = await complete(endpoint, { ...req, maxTokens });
      return res.ok ? { ok: true, text: res.text } : { ok: false, reason: res.reason };
    },
  };
}
