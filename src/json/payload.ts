/**
 * The one reader of untrusted JSON (a host's hook payload or settings entry, a provider's request,
 * reply or stream event, a model's tool-call arguments, a record or ledger file read back from disk):
 * each accessor gives the value at a path when it has the asked shape, else undefined — never a
 * throw, never a cast a caller has to trust. Such JSON is data from outside cg (DESIGN: untrusted
 * input includes the repository and what the host sends), so every field is read through here
 * rather than by hand at each use. It sits in json/, below hosts/, input/ and proxy/, so every
 * door can use it without an arrow running back up. Config files are read by config/fields.ts,
 * which also says what is wrong with a field.
 *
 *   stringAt(payload, 'tool_input', 'command')   // the command, when tool_input is an object holding a string
 *   objectAt(answer, 'hookSpecificOutput')       // a plain object (not an array, not null)
 */

export type JsonObject = Record<string, unknown>;

/** A plain JSON object: not null, not an array. */
export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The value at a path of object keys, or undefined where a step is not an object or lacks the key. */
export function valueAt(v: unknown, ...path: readonly string[]): unknown {
  let at = v;
  for (const key of path) {
    if (!isObject(at) || !Object.hasOwn(at, key)) return undefined;
    at = at[key];
  }
  return at;
}

export function objectAt(v: unknown, ...path: readonly string[]): JsonObject | undefined {
  const at = valueAt(v, ...path);
  return isObject(at) ? at : undefined;
}

export function stringAt(v: unknown, ...path: readonly string[]): string | undefined {
  const at = valueAt(v, ...path);
  return typeof at === 'string' ? at : undefined;
}

/** A string that is not empty (ids and directories: an empty one says nothing). */
export function filledStringAt(v: unknown, ...path: readonly string[]): string | undefined {
  const at = stringAt(v, ...path);
  return at === undefined || at === '' ? undefined : at;
}

export function numberAt(v: unknown, ...path: readonly string[]): number | undefined {
  const at = valueAt(v, ...path);
  return typeof at === 'number' && Number.isFinite(at) ? at : undefined;
}

export function arrayAt(v: unknown, ...path: readonly string[]): readonly unknown[] | undefined {
  const at = valueAt(v, ...path);
  return Array.isArray(at) ? at : undefined;
}

/** A list whose every element is a string, or undefined. */
export function stringsAt(v: unknown, ...path: readonly string[]): readonly string[] | undefined {
  const at = arrayAt(v, ...path);
  return at?.every((s) => typeof s === 'string') ? (at as readonly string[]) : undefined;
}
