/**
 * Calling a component safely, for the pipeline: a deadline on every run (fail-open on a timeout or a
 * throw), a check that what came back keeps the Component contract (markers included: the one
 * check for every text a component writes, an output's rewrite or a replacement of messages),
 * applies() and concurrency() that can never throw, and a small limiter for components whose runs
 * may overlap.
 */
import { type Component, MARKER_SLOT, type Outcome, type OutputView, type RunContext } from '../component.js';
import { hasMarker, markerKeys } from '../store/marker.js';

/** Why an outcome breaks the Component contract, or undefined when it keeps it. */
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
  return writtenMarkerProblem(outcome.text, outcome.loss === 'none' ? 'none' : 'at most one', [input]);
}

/**
 * Why a component's text misuses markers, or undefined: it must hold MARKER_SLOT as often as asked
 * (a lossless rewrite none, a lossy one at most one, a replacement of messages exactly one), and no
 * marker that none of `inputs` carried. Markers an input had (a README about cg, a log of cg runs)
 * may pass through; any other can only have been forged.
 */
export function writtenMarkerProblem(
  text: string,
  slots: 'none' | 'at most one' | 'exactly one',
  inputs: Iterable<string>,
): string | undefined {
  const n = text.split(MARKER_SLOT).length - 1;
  if (slots === 'exactly one' && n !== 1) return 'needs exactly one marker slot';
  if (n > 1) return 'placed more than one marker slot';
  if (slots === 'none' && n === 1) return 'placed a marker slot in a lossless rewrite';
  const written = n === 1 ? text.replace(MARKER_SLOT, '') : text;
  if (!hasMarker(written)) return undefined;
  const had = new Set([...inputs].flatMap((t) => markerKeys(t)));
  return markerKeys(written).some((k) => !had.has(k)) ? 'wrote a marker itself' : undefined;
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

export function safeApplies(component: Component, o: OutputView, config: unknown): boolean {
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
