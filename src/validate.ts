/**
 * Strict validation helpers shared by config loading and every component's parseConfig. Each
 * throws ConfigError with the path of the offending value and what was expected, so a user sees
 * `components.collapse.head_lines: expected an integer ≥ 0, got "x"`.
 */
import { ConfigError } from './errors.js';

export function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'a mapping';
  // A short excerpt: a value is echoed to say what was wrong, never to print a whole file back.
  if (typeof v === 'string') return v.length > 60 ? `${JSON.stringify(v.slice(0, 60))}…` : JSON.stringify(v);
  return String(v);
}

/** A plain mapping whose keys are all in `allowed`; undefined/null read as empty. */
export function mapping(raw: unknown, path: string, allowed: readonly string[]): Record<string, unknown> {
  if (raw === undefined || raw === null) return {};
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    throw new ConfigError(path, `expected a mapping, got ${describe(raw)}`);
  }
  const rec = raw as Record<string, unknown>;
  for (const k of Object.keys(rec)) {
    if (!allowed.includes(k)) {
      const hint = allowed.length ? ` (known: ${allowed.join(', ')})` : '';
      throw new ConfigError(join(path, k), `unknown key${hint}`);
    }
  }
  return rec;
}

export function integer(
  raw: unknown,
  path: string,
  fallback: number,
  min = 0,
  max = Number.MAX_SAFE_INTEGER,
): number {
  if (raw === undefined) return fallback;
  if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < min || raw > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `≥ ${min}` : `in ${min}..${max}`;
    throw new ConfigError(path, `expected an integer ${range}, got ${describe(raw)}`);
  }
  return raw;
}

export function number(raw: unknown, path: string, fallback: number, min = 0): number {
  if (raw === undefined) return fallback;
  if (typeof raw !== 'number' || !Number.isFinite(raw) || raw < min) {
    throw new ConfigError(path, `expected a number ≥ ${min}, got ${describe(raw)}`);
  }
  return raw;
}

export function boolean(raw: unknown, path: string, fallback: boolean): boolean {
  if (raw === undefined) return fallback;
  if (typeof raw !== 'boolean') throw new ConfigError(path, `expected true or false, got ${describe(raw)}`);
  return raw;
}

export function string(raw: unknown, path: string, fallback: string): string {
  if (raw === undefined) return fallback;
  if (typeof raw !== 'string') throw new ConfigError(path, `expected a string, got ${describe(raw)}`);
  return raw;
}

export function oneOf<T extends string>(raw: unknown, path: string, choices: readonly T[], fallback: T): T {
  if (raw === undefined) return fallback;
  if (typeof raw !== 'string' || !(choices as readonly string[]).includes(raw)) {
    throw new ConfigError(path, `expected one of ${choices.join(', ')}, got ${describe(raw)}`);
  }
  return raw as T;
}

export function stringList(raw: unknown, path: string, fallback: readonly string[]): string[] {
  if (raw === undefined) return [...fallback];
  if (!Array.isArray(raw) || raw.some((x) => typeof x !== 'string')) {
    throw new ConfigError(path, `expected a list of strings, got ${describe(raw)}`);
  }
  return raw as string[];
}

function join(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}
