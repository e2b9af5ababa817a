/**
 * What toon calls a table: an array of objects that all have the same keys in the same order and
 * only primitive values (null, boolean, number, string). TOON writes such an array as a header
 * naming the keys once and one line of values per row, a row's line depending only on its values
 * and the delimiter — which is what lets a large table be encoded and proven a chunk of rows at a
 * time (encode-table.ts, prove-table.ts).
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function isPrimitive(v: Json): boolean {
  return v === null || typeof v !== 'object';
}

/** The keys of a row that can stand in a table (an object of primitives with keys), else undefined. */
export function rowKeys(row: Json): string[] | undefined {
  if (row === null || typeof row !== 'object' || Array.isArray(row)) return undefined;
  const keys = Object.keys(row);
  if (keys.length === 0) return undefined;
  return keys.every((k) => isPrimitive(row[k] as Json)) ? keys : undefined;
}

/** Whether every row has exactly `keys`, in that order, and only primitive values. */
export function rowsFit(rows: readonly Json[], keys: readonly string[]): boolean {
  return rows.every((row) => {
    if (row === null || typeof row !== 'object' || Array.isArray(row)) return false;
    const k = Object.keys(row);
    return k.length === keys.length && k.every((key, i) => key === keys[i] && isPrimitive(row[key] as Json));
  });
}

/** A table: ≥ minRows objects, each with the same keys in the same order, all values primitive. */
export function isTable(a: readonly Json[], minRows: number): boolean {
  if (a.length < minRows || a.length === 0) return false;
  const keys = rowKeys(a[0] as Json);
  return keys !== undefined && rowsFit(a, keys);
}

/** How many arrays in the value are tables (depth-first, iterative). */
export function countTables(root: Json, minRows: number): number {
  let n = 0;
  const todo: Json[] = [root];
  while (todo.length > 0) {
    const v = todo.pop() as Json;
    if (v === null || typeof v !== 'object') continue;
    if (Array.isArray(v)) {
      if (isTable(v, minRows)) n++;
      else for (const x of v) todo.push(x);
    } else {
      for (const x of Object.values(v)) todo.push(x);
    }
  }
  return n;
}
