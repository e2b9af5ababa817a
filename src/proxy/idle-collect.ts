/**
 * A full collection while the proxy is idle, after a turn over a large body. Each such turn leaves
 * tens of MB of buffers behind (the body as it came, what was sent for it, the turn before's pair
 * now dropped); V8 frees them only at a full collection, and counts them as external memory: left
 * for later, they push the *next* turn's body over V8's external-memory limit, which then pays a
 * full collection of every session's state (30–100 ms at a 20 k-result session) inside its own
 * latency. Collected here instead — once no request is in flight, while the client reads its
 * answer and the model works — the next turn mostly starts under the limit (the last turn's bodies
 * are still alive then, so a turn may still meet one). A request arriving before the
 * collection ran puts it off to the next idle moment. The collector is src/heap/gc.ts's (a no-op
 * where the runtime refuses it: then only latency differs).
 */
import { collectGarbage } from '../heap/gc.js';

/** A body at least this large leaves enough garbage to be worth a collection. */
export const LARGE_BODY_BYTES = 4 * 1024 * 1024;

export interface IdleCollector {
  /** A request began: no collection until every request in flight has ended. */
  begin(): void;
  /** A request ended; `bytes`: how large the body it compacted was (0 for one it did not). */
  end(bytes: number): void;
}

export function idleCollector(collect: () => void = collectGarbage, delayMs = 20): IdleCollector {
  let active = 0;
  let due = false;
  let timer: NodeJS.Timeout | undefined;
  const run = () => {
    timer = undefined;
    if (active > 0 || !due) return;
    due = false;
    collect();
  };
  return {
    begin() {
      active++;
      if (timer) clearTimeout(timer);
      timer = undefined;
    },
    end(bytes) {
      active = Math.max(0, active - 1);
      if (bytes >= LARGE_BODY_BYTES) due = true;
      if (due && active === 0 && !timer) {
        timer = setTimeout(run, delayMs);
        // A pending collection never keeps the process alive.
        timer.unref();
      }
    },
  };
}
