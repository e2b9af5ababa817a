/**
 * Component state kept between the turns of a session (SessionMemo), and runMemo(): the same for
 * one run only, when there is no session to keep it in.
 */

/**
 * Small per-session state a component keeps between turns (a model's result for an output, a
 * summary checkpoint), saved with the session's record. Keys are namespaced by the component
 * ("extract:<hash>"). Without a session it lives for one run only.
 */
export interface SessionMemo {
  get(key: string): string | undefined;
  set(key: string, value: string): void;
}

/** Component state for one run only, when there is no session to keep it in. */
export function runMemo(): SessionMemo {
  const m = new Map<string, string>();
  return { get: (k) => m.get(k), set: (k, v) => void m.set(k, v) };
}
