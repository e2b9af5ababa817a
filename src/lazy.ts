/**
 * Interop for lazily imported CommonJS packages: once bundled, `await import()` of a CJS module
 * yields its exports under `default`, while under vitest/Node it yields them as named exports.
 */
export function cjsExports<T extends object>(mod: T): T {
  const inner = (mod as { default?: unknown }).default;
  return inner &&
    typeof inner === 'object' &&
    !Object.keys(mod).some((k) => k !== 'default' && k !== 'module.exports')
    ? (inner as T)
    : mod;
}
