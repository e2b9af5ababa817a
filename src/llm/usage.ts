/**
 * What cg's own model calls cost (ModelUsage): read from the usage each API reports in its reply,
 * or — when a server reports none — counted from the request and the reply with the run's
 * tokenizer and marked estimated; and summed, so a pipeline event and the ledger carry one figure
 * per component call however many requests it made.
 *
 * The APIs count differently, and `in` is made to mean the same everywhere — every token the model
 * took in:
 *   - Chat Completions: usage.prompt_tokens (cached tokens included; prompt_tokens_details.cached_tokens
 *     says how many of them were read from the cache), usage.completion_tokens (reasoning included);
 *   - Responses: usage.input_tokens (input_tokens_details.cached_tokens of them cached), output_tokens;
 *   - Messages: usage.input_tokens counts only the uncached part, so cache_read_input_tokens and
 *     cache_creation_input_tokens are added to it; output_tokens.
 * OpenAI-compatible servers that answer Chat Completions with Responses-style names are read too.
 */
import { numberAt, valueAt } from '../json/payload.js';
import type { Tokens } from '../tokens.js';
import type { ModelApi } from './client.js';

export interface ModelUsage {
  /** Requests the model answered (a refused or unreachable request costs nothing and is not one). */
  calls: number;
  /** Tokens the model took in, cache reads and writes included. */
  in: number;
  /** Tokens it gave out, reasoning included. */
  out: number;
  /** Of `in`: read from the provider's prompt cache, and written to it (Anthropic reports writes). */
  cacheRead: number;
  cacheWrite: number;
  /** Of `calls`: those whose server reported no usage, counted with the run's tokenizer instead. */
  estimated: number;
}

export const NO_USAGE: Readonly<ModelUsage> = Object.freeze({
  calls: 0,
  in: 0,
  out: 0,
  cacheRead: 0,
  cacheWrite: 0,
  estimated: 0,
});

/** The usage one reply reports, or undefined when it reports none (or none this reader trusts). */
export function replyUsage(api: ModelApi, json: unknown): ModelUsage | undefined {
  const u = valueAt(json, 'usage');
  if (u === undefined) return undefined;
  if (api === 'anthropic') {
    const input = count(u, 'input_tokens');
    const output = count(u, 'output_tokens');
    if (input === undefined || output === undefined) return undefined;
    const cacheRead = count(u, 'cache_read_input_tokens') ?? 0;
    const cacheWrite = count(u, 'cache_creation_input_tokens') ?? 0;
    return one(input + cacheRead + cacheWrite, output, cacheRead, cacheWrite);
  }
  const input = count(u, 'prompt_tokens') ?? count(u, 'input_tokens');
  const output = count(u, 'completion_tokens') ?? count(u, 'output_tokens');
  if (input === undefined || output === undefined) return undefined;
  const details = valueAt(u, 'prompt_tokens_details') ?? valueAt(u, 'input_tokens_details');
  const cached = Math.min(input, count(details, 'cached_tokens') ?? 0);
  return one(input, output, cached, 0);
}

/**
 * A call whose server reported no usage: the system prompt and prompt as sent, and the reply's text
 * (none when the reply had no usable text), counted with the run's tokenizer.
 */
export async function estimatedUsage(
  tokens: Tokens,
  req: { system: string; prompt: string },
  reply: string | undefined,
): Promise<ModelUsage> {
  const input = (await tokens.count(req.system)) + (await tokens.count(req.prompt));
  const output = reply === undefined ? 0 : await tokens.count(reply);
  return { ...one(input, output, 0, 0), estimated: 1 };
}

export function addUsage(a: ModelUsage, b: ModelUsage): ModelUsage {
  return {
    calls: a.calls + b.calls,
    in: a.in + b.in,
    out: a.out + b.out,
    cacheRead: a.cacheRead + b.cacheRead,
    cacheWrite: a.cacheWrite + b.cacheWrite,
    estimated: a.estimated + b.estimated,
  };
}

function one(input: number, output: number, cacheRead: number, cacheWrite: number): ModelUsage {
  return { calls: 1, in: input, out: output, cacheRead, cacheWrite, estimated: 0 };
}

/** A token count: a whole number ≥ 0, else undefined (a server's null or a string is no count). */
function count(v: unknown, key: string): number | undefined {
  const n = numberAt(v, key);
  return n !== undefined && Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}
