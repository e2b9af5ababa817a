/**
 * Calling a component safely, for the pipeline: a deadline on every run (fail-open on a timeout or a
 * throw), a check that what came back keeps the Component contract, applies() and concurrency()
 * that can never throw, and a small limiter for components whose runs may overlap.
 */
import { type Component, MARKER_SLOT, type Outcome, type RunContext } from '../component.js';
import type { ToolOutput } from '../input/transcript.js';
import { hasMarker, markerKeys } from '../store/marker.js';

export function contractProblem(component: Component, o: unknown, input: string): string | undefined {
  if (!o || typeof o !== 'object') return 'returned no outcome';
  const outcome = o as Outcome;
  if (outcome.kind === 'skip')
    return typeof outcome.gate === 'string' ? undefined : 'skip without a gate name';
  if (outcome.kind !== 'rewrite') return 'returned an unknown outcome kind';
  if (typeof outcome.text !== 'string') return 'rewrite without text';
  if (!['none', 'tail', 'whole'].includes(outcome.loss))
    return `unknown loss ${JSON.stringify(outcome.loss)}`;
  if (!component.lossy && outcome.loss !== 'none')
    return `lossless component reported loss '${outcome.loss}'`;
  const slots = outcome.text.split(MARKER_SLOT).length - 1;
  if (slots > 1) return 'placed more than one marker slot';
  if (slots === 1 && outcome.loss === 'none') return 'placed a marker slot in a lossless rewrite';
  // Markers the input already carried (a README about cg, a log of cg runs) may pass through; a
  // marker the input did not have can only have been forged by the component.
  const written = outcome.text.replace(MARKER_SLOT, '');
  if (hasMarker(written)) {
    const had = new Set(markerKeys(input));
    if (markerKeys(written).some((k) => !had.has(k))) return 'wrote a marker itself';
  }
  return undefined;
}

/** Runs at most `width` of the given tasks at once, in the order they were handed over. */
export function limiter(width: number) {
  let active = 0;
  const waiting: (() => void)[] = [];
  return <T>(task: () => Promise<T>): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const go = () => {
        active++;
        task()
          .then(resolve, reject)
          .finally(() => {
            active--;
            waiting.shift()?.();
          });
      };
      if (active < width) go();
      else waiting.push(go);
    });
}

/** The deadline for one run: the pipeline's, or longer when the component needs it (never throws). */
export function deadlineFor(
  component: Component,
  config: unknown,
  ctx: RunContext,
  fallback: number,
): number {
  try {
    const own = component.deadlineMs?.(config as never, ctx);
    return typeof own === 'number' && Number.isFinite(own) && own > fallback ? own : fallback;
  } catch {
    return fallback;
  }
}

export function safeConcurrency(component: Component, config: unknown): number {
  try {
    const n = component.scope === 'output' ? (component.concurrency?.(config) ?? 1) : 1;
    return Number.isInteger(n) && n > 0 ? n : 1;
  } catch {
    return 1;
  }
}

export function safeApplies(component: Component, o: ToolOutput, config: unknown): boolean {
  try {
    return component.scope === 'output' && component.applies ? component.applies(o, config) : true;
  } catch {
    return false;
  }
}

const TIMED_OUT = Symbol('timed out');

export type Guarded<T> = { kind: 'ok'; value: T } | { kind: 'error'; message: string };

export async function guarded<T>(fn: () => T | Promise<T>, timeoutMs: number): Promise<Guarded<T>> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(TIMED_OUT), timeoutMs);
      timer.unref();
    });
    const value = await Promise.race([Promise.resolve().then(fn), deadline]);
    return { kind: 'ok', value };
  } catch (err) {
    if (err === TIMED_OUT) return { kind: 'error', message: `timed out after ${timeoutMs} ms` };
    return { kind: 'error', message: `threw: ${err instanceof Error ? err.message : String(err)}` };
  } finally {
    if (timer) clearTimeout(timer);
  }
}
