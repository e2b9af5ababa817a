/**
 * The one reader of untrusted JSON from outside cg (hook payloads, a tool's response, a hook's answer in
 * doctor's round trip, a settings entry): each accessor gives the value at a path when it has the
 * asked shape, else undefined — never a throw, never a cast a caller has to trust. A host's JSON is
 * data from outside cg (DESIGN: untrusted input includes the repository and what the host sends),
 * so every field is read through here rather than by hand at each use.
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
