/**
 * The proxy's own answers for whatever runs it (a balancer, an orchestrator), never forwarded:
 *   GET /healthz  200 while the process serves — liveness;
 *   GET /readyz   200 when the store and the session records can be reached now (Redis asked
 *                 there and then, bounded by its timeout), 503 with the reasons otherwise, and 503
 *                 once the proxy is draining for a shutdown — readiness.
 * A proxy whose Redis is away still forwards every body (fail open), so a balancer should route
 * by /healthz and leave /readyz to deploys and alerts: taking every instance out of rotation
 * because the shared store is down would turn a slower fleet into no fleet.
 * The bodies name what is wrong without a secret: a server as it is displayed (no password), a
 * directory.
 */
import type { RecordBackend } from '../session/records.js';
import { sharedRedis } from '../store/fleet-store.js';
import type { Store } from '../store/store.js';

export const HEALTHZ_PATH = '/healthz';
export const READYZ_PATH = '/readyz';

export interface Answer {
  status: number;
  body: string;
}

/** Why the store cannot take originals now, or undefined; 'off' when the proxy runs without one. */
async function storeProblem(store: Store | null): Promise<string | undefined> {
  if (!store) return undefined;
  const redis = sharedRedis(store);
  if (redis) {
    const reason = redis.link.probe ? await redis.link.probe() : redis.link.downReason();
    return reason === undefined ? undefined : `${redis.link.display}: ${reason}`;
  }
  return (await store.writable()) ? undefined : `${store.dir}: not writable`;
}

export function healthz(draining: boolean): Answer {
  return { status: 200, body: JSON.stringify({ status: draining ? 'draining' : 'ok' }) };
}

export async function readyz(
  store: Store | null,
  records: RecordBackend | undefined,
  draining: boolean,
): Promise<Answer> {
  const [s, r] = await Promise.all([storeProblem(store), records?.problem()]);
  const ready = !draining && s === undefined && r === undefined;
  return {
    status: ready ? 200 : 503,
    body: JSON.stringify({
      ready,
      ...(draining ? { draining: true } : {}),
      store: store ? (s ?? 'ok') : 'off',
      sessions: records ? (r ?? 'ok') : 'off',
    }),
  };
}
