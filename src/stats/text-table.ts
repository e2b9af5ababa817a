/**
 * The texts a run's ledger lines are counted from, each once (a component's output is the next
 * one's input): a text itself, a stashed original by key, or what an agent host would show of one
 * (its view: counted from the store through hosts.ts, never copied). record.ts turns the table into
 * ledger lines at once or into a pending record (pending.ts).
 */
import { hostModel, hostView, hostViewBytesBound } from './hosts.js';

export interface TextEntry {
  text?: string | Uint8Array;
  bytes: number;
  key?: string;
  n?: number;
  /** Count what this host would show of the text, not the text (the text is the stashed original). */
  view?: string;
}

/** Texts to count, deduplicated by value (a component's output is the next one's input). */
export class TextTable {
  readonly texts: TextEntry[] = [];
  private readonly byText = new Map<string, number>();
  private readonly byView = new Map<string, number>();

  /**
   * What `host` would show of a text too long for it to show whole. A stashed original is counted
   * from the store through the view (never copied); any other text's view is short and kept as text.
   */
  addView(host: string, text: string, bytes: number, key?: string): number {
    const model = hostModel(host)!;
    if (key) {
      const seen = this.byView.get(key);
      if (seen !== undefined) return seen;
      this.byView.set(key, this.texts.length);
      this.texts.push({ text, bytes, key, view: host });
      return this.texts.length - 1;
    }
    const view = hostView(model, text);
    return this.add(view, Buffer.byteLength(view));
  }

  add(text: string | undefined, bytes: number, key?: string): number {
    if (text !== undefined) {
      const seen = this.byText.get(text);
      if (seen !== undefined) {
        if (key) this.texts[seen]!.key = key;
        return seen;
      }
      this.byText.set(text, this.texts.length);
    }
    this.texts.push({ ...(text !== undefined ? { text } : {}), bytes, ...(key ? { key } : {}) });
    return this.texts.length - 1;
  }
}

/**
 * The table entry for what a host shows of a text: the text's view, or, when the text is unknown
 * (an event without texts), an estimate bounded by what the host keeps.
 */
export function viewOf(
  table: TextTable,
  host: string,
  text: string | undefined,
  bytes: number,
  key?: string,
): number {
  if (text !== undefined) return table.addView(host, text, bytes, key);
  table.texts.push({ bytes: hostViewBytesBound(hostModel(host)!, bytes) });
  return table.texts.length - 1;
}

/** What a host shows of a stashed original whose text this process does not hold. */
export function viewOfStored(table: TextTable, host: string, bytes: number, key: string): number {
  table.texts.push({ bytes, key, view: host });
  return table.texts.length - 1;
}
