/**
 * V8's collector on request. V8 frees an ArrayBuffer's memory only when the object holding it is
 * collected, and garbage in the old generation waits until the heap next fills (by default it grows
 * to two to four times what is alive first), so a loop or a run over tens of MB can peak at several
 * times what it ever holds. Node 20 has no ArrayBuffer.prototype.transfer to release a buffer at
 * once; gc is exposed on first use instead (v8.setFlagsFromString('--expose-gc'), then `gc` from a
 * fresh vm context, as Node's maintainers suggest: nodejs/node#16595). The flag only makes the
 * function reachable; where the runtime refuses, collecting is a no-op and only memory differs.
 * node:v8 and node:vm are required on first use: runs over small inputs never load them.
 */
import { createRequire } from 'node:module';

let collector: (() => void) | null | undefined;

/** The collector, or null where it cannot be had. */
export function exposedGc(): (() => void) | null {
  if (collector !== undefined) return collector;
  try {
    // Made here, not as the module loads: every start-up loads this module, few collect.
    const load = createRequire(import.meta.url);
    (load('node:v8') as typeof import('node:v8')).setFlagsFromString('--expose-gc');
    const gc: unknown = (load('node:vm') as typeof import('node:vm')).runInNewContext(
      'typeof gc === "function" ? gc : null',
    );
    collector = typeof gc === 'function' ? (gc as () => void) : null;
  } catch {
    collector = null;
  }
  return collector;
}

/** One full collection now (a large buffer was just let go, or a stage left its garbage). */
export function collectGarbage(): void {
  exposedGc()?.();
}
