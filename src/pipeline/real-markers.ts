/**
 * Which marker keys in a run's texts are real (DESIGN §1): a key the store holds, or one this run
 * stashed. Content that carries a real marker is never offloaded again; marker-shaped text that
 * resolves nowhere (a diff of code that mentions markers, a log that quotes one from a cleared
 * store) is ordinary text. The store is asked once per key and run, in one batch per stage, and
 * only for texts that hold something marker-shaped; a store that cannot tell, or fails, makes every
 * key count as real — the gate then stays closed, as it always was.
 */
import { hasAll, type Store } from '../store/store.js';

export class RealMarkers {
  private readonly known = new Map<string, boolean>();

  constructor(private readonly store: Store | undefined) {}

  /** A key this run stashed an original under. */
  stashed(key: string): void {
    this.known.set(key, true);
  }

  /** For each list of keys, whether any of them is real. */
  async anyReal(lists: readonly (readonly string[])[]): Promise<boolean[]> {
    const asked = [...new Set(lists.flat())].filter((k) => !this.known.has(k));
    if (asked.length > 0) {
      let found: boolean[] | undefined;
      try {
        found = this.store ? await hasAll(this.store, asked) : undefined;
      } catch {
        found = undefined;
      }
      for (const [i, k] of asked.entries()) this.known.set(k, found ? found[i] === true : true);
    }
    return lists.map((keys) => keys.some((k) => this.known.get(k) === true));
  }
}
