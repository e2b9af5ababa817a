/**
 * The field-spec toolkit: one declaration per config section gives its defaults, its strict parser
 * and its TypeScript type (the rtk shape: the file's raw form and the typed value cannot drift, since
 * both come from the same lines). Every component's config, the config file's sections and the
 * filter-file format are declared with it.
 *
 *   const CONFIG = section({
 *     max_tokens: integer().or(2000),
 *     ttlDays: integer().key('ttl_days').or(14),          // file key ≠ property name
 *     maxBytes: integer({ min: 1 }).or(512).to(mebibytes), // a default goes through .to() too
 *     model: string().optional(),                          // absent: no property at all
 *     match: string().required('a regex on the selector'), // absent: "match: missing (…)"
 *   });
 *   type Config = ConfigOf<typeof CONFIG>;   CONFIG.defaults;   CONFIG.parse(raw)
 *
 * Parsing is strict: an unknown key is an error that names the nearest known key ("did you mean
 * head_lines?") and lists them all; a bad value is a ConfigError with the dotted path of where it sat
 * (`trigger.min_messages`, `replace[0].pattern`) and what was expected, echoing at most a short
 * excerpt of what was found. A null section or list (`key:` with nothing after it) reads as empty.
 *
 * A field may carry a line of documentation, `.doc('…')` (and a default as the reader should see
 * it, when the value is not telling: `.doc('…', 'all 15')`); a section keeps its fields, so
 * scripts/docs.mjs writes the README's and the manual's option tables from these declarations —
 * the one place a default is written. Documentation never changes what a field reads.
 */
import { ConfigError } from '../errors.js';
import { didYouMean } from './nearest.js';

/** How an absent key reads: as the default, as no property at all, or as an error. */
export type Presence = 'default' | 'optional' | 'required';

type Read<T> = (raw: unknown, path: string) => T;

/** What a field says about itself, for the generated reference: never read when parsing. */
export interface FieldMeta {
  /** The key as the file writes it, when that is not the property name. */
  fileKey?: string;
  /** One line on what the setting does. */
  doc?: string;
  /** The default as the reference shows it, when the value itself is not telling. */
  shownDefault?: string;
  /** The default as the file would write it (before any .to()), when there is one. */
  fileDefault?: { value: unknown };
}

/** One key of a section: how a present value is read and what its absence means. */
export class Field<T, P extends Presence = Presence> {
  constructor(
    /** Reads a present value; throws ConfigError at `path` when it is not acceptable. */
    readonly read: Read<T>,
    /** The value of an absent key: its default, undefined when optional; throws when required. */
    readonly absent: (path: string) => T,
    readonly presence: P,
    readonly meta: FieldMeta = {},
  ) {}

  /** The key as the file writes it, when that is not the property name. */
  get fileKey(): string | undefined {
    return this.meta.fileKey;
  }

  /** Converts or checks the value further (a default too); `path` is where it sat, for errors. */
  to<U>(convert: (value: T, path: string) => U): Field<U, P> {
    const { read, absent } = this;
    const absentU =
      this.presence === 'optional'
        ? (absent as unknown as (path: string) => U)
        : (path: string) => convert(absent(path), path);
    return new Field((raw, path) => convert(read(raw, path), path), absentU, this.presence, this.meta);
  }

  /** Refuses a value for which `problem` gives a reason. */
  check(problem: (value: T) => string | undefined): Field<T, P> {
    return this.to((value, path) => {
      const reason = problem(value);
      if (reason !== undefined) throw new ConfigError(path, reason);
      return value;
    });
  }

  /** The key as the file writes it (`ttl_days`), when the property is named otherwise (`ttlDays`). */
  key(fileKey: string): Field<T, P> {
    return new Field(this.read, this.absent, this.presence, { ...this.meta, fileKey });
  }

  /** A line for the reference tables; `shownDefault` when the default itself would not tell. */
  doc(text: string, shownDefault?: string): Field<T, P> {
    return new Field(this.read, this.absent, this.presence, withDoc(this.meta, text, shownDefault));
  }

  /** Absent reads as `value` (a list or mapping is copied, so no two callers share one). */
  or(value: T): Field<T, 'default'> {
    return new Field(this.read, () => fresh(value), 'default', { ...this.meta, fileDefault: { value } });
  }

  optional(): Field<T, 'optional'> {
    return new Field(this.read, () => undefined as T, 'optional', this.meta);
  }

  /** Absent is an error: `missing`, or `missing (hint)` saying what belongs there. */
  required(hint?: string): Field<T, 'required'> {
    const reason = hint ? `missing (${hint})` : 'missing';
    return new Field(
      this.read,
      (path) => {
        throw new ConfigError(path, reason);
      },
      'required',
      this.meta,
    );
  }
}

function withDoc(meta: FieldMeta, doc: string, shownDefault: string | undefined): FieldMeta {
  return shownDefault === undefined ? { ...meta, doc } : { ...meta, doc, shownDefault };
}

// biome-ignore lint/suspicious/noExplicitAny: a shape holds fields of any value type
type AnyField = Field<any, Presence>;
/** The fields of a section, by property name. */
export type Shape = Record<string, AnyField>;

/** The value type a field, a section or a list of them reads to. */
// biome-ignore lint/suspicious/noExplicitAny: matches any presence
export type ConfigOf<F> = F extends Field<infer T, any> ? T : never;

/** An optional field's property may be absent; every other one is always there. */
export type ShapeValue<S extends Shape> = Flat<
  { [K in keyof S as S[K] extends Field<unknown, 'optional'> ? never : K]: ConfigOf<S[K]> } & {
    [K in keyof S as S[K] extends Field<unknown, 'optional'> ? K : never]?: ConfigOf<S[K]>;
  }
>;
type Flat<T> = { [K in keyof T]: T[K] } & {};

export interface SectionOptions {
  /** What the format calls its keys, for "unknown key" (the filter format says "field"). */
  noun?: string;
  /** Keys refused with their own reason, before the unknown-key check (a key written in the file). */
  refused?: Record<string, string>;
}

/** A field of a section as the file writes it, for the generated reference. */
export interface SectionEntry {
  key: string;
  field: AnyField;
}

/** A mapping of fields; absent or null reads as {}, so as its defaults. */
export class Section<T> extends Field<T, 'default'> {
  constructor(
    read: Read<T>,
    /** The keys a file may write in it. */
    readonly keys: readonly string[] = [],
    /** Its fields in declaration order (the reference tables walk them). */
    readonly entries: readonly SectionEntry[] = [],
    meta: FieldMeta = {},
  ) {
    super(read, (path) => read({}, path), 'default', meta);
  }

  /** A fresh copy of the values an empty section reads to. */
  get defaults(): T {
    return this.absent('');
  }

  /** The section's value from a parsed document; errors are relative to `path` ('' = the top). */
  readonly parse = (raw: unknown, path = ''): T =>
    raw === undefined ? this.absent(path) : this.read(raw, path);

  override to<U>(convert: (value: T, path: string) => U): Section<U> {
    const read = this.read;
    return new Section((raw, path) => convert(read(raw, path), path), this.keys, this.entries, this.meta);
  }

  override check(problem: (value: T) => string | undefined): Section<T> {
    return super.check(problem) as Section<T>;
  }

  override doc(text: string, shownDefault?: string): Section<T> {
    return new Section(this.read, this.keys, this.entries, withDoc(this.meta, text, shownDefault));
  }
}

export function section<S extends Shape>(shape: S, opts: SectionOptions = {}): Section<ShapeValue<S>> {
  const entries = Object.entries(shape).map(([prop, f]) => ({ prop, key: f.fileKey ?? prop, f }));
  const known = entries.map((e) => e.key);
  const listed = entries.map(({ key, f }) => ({ key, field: f }));
  return new Section(
    (given, path) => {
      const m = given === null ? {} : mapping(given, path);
      for (const k of Object.keys(m)) {
        const refusal = opts.refused && Object.hasOwn(opts.refused, k) ? opts.refused[k] : undefined;
        if (refusal !== undefined) throw new ConfigError(join(path, k), refusal);
        if (!known.includes(k)) throw unknownKey(join(path, shownKey(k)), k, known, opts.noun ?? 'key');
      }
      const out: Record<string, unknown> = {};
      for (const { prop, key, f } of entries) {
        const at = join(path, key);
        const raw = Object.hasOwn(m, key) ? m[key] : undefined;
        const value = raw === undefined ? f.absent(at) : f.read(raw, at);
        if (value !== undefined || f.presence !== 'optional') out[prop] = value;
      }
      return out as ShapeValue<S>;
    },
    known,
    listed,
  );
}

/** Characters of an unknown key an error shows: a key is a name, not a place for the file's content. */
const KEY_SHOWN = 40;

/**
 * An unknown key as an error's path shows it: control characters escaped, cut to a short excerpt.
 * A file that is not a config at all can hold its secrets in its keys (`/etc/shadow` reads as YAML
 * whose first key is root's password hash).
 */
export function shownKey(key: string): string {
  const clean = key.replace(
    /[\u0000-\u001f\u007f]/g,
    (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`,
  );
  return clean.length > KEY_SHOWN ? `${clean.slice(0, KEY_SHOWN)}…` : clean;
}

/** A list of one kind of item, each read at `path[i]`; absent or null is the empty list. */
export function list<T>(item: Field<T>, what = 'a list'): Field<T[], 'default'> {
  return field<T[]>((raw, path) => {
    if (raw === null) return [];
    if (!Array.isArray(raw)) throw new ConfigError(path, `expected ${what}, got ${describe(raw)}`);
    return raw.map((v, i) => item.read(v, `${path}[${i}]`));
  }).or([]);
}

/** A mapping of names the user chooses (filter names) to one kind of value; absent or null is {}. */
export function record<T>(
  item: Field<T>,
  opts: { what?: string; badName?: (name: string) => string | undefined } = {},
): Field<Record<string, T>, 'default'> {
  return field<Record<string, T>>((raw, path) => {
    if (raw === null) return {};
    const m = mapping(raw, path, opts.what);
    const out: Record<string, T> = {};
    for (const [name, v] of Object.entries(m)) {
      const reason = opts.badName?.(name);
      if (reason !== undefined) throw new ConfigError(join(path, shownKey(name)), reason);
      // defineProperty: a name such as __proto__ stays a plain key, never the object's prototype.
      Object.defineProperty(out, name, {
        value: item.read(v, join(path, name)),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  }).or({});
}

export function integer(range: { min?: number; max?: number } = {}): Field<number, 'required'> {
  const { min = 0, max } = range;
  const expected = `expected an integer ${max === undefined ? `≥ ${min}` : `in ${min}..${max}`}`;
  return scalar((v) => typeof v === 'number' && Number.isInteger(v) && v >= min && v <= (max ?? v), expected);
}

/** A finite number; `above` makes the lower bound exclusive ("in (0, 1]"). */
export function number(
  range: { min?: number; max?: number; above?: boolean } = {},
): Field<number, 'required'> {
  const { min = 0, max, above = false } = range;
  const bounds =
    max === undefined ? `${above ? '>' : '≥'} ${min}` : above ? `in (${min}, ${max}]` : `in ${min}..${max}`;
  const expected = `expected a number ${bounds}`;
  return scalar(
    (v) => typeof v === 'number' && Number.isFinite(v) && (above ? v > min : v >= min) && v <= (max ?? v),
    expected,
  );
}

export function boolean(): Field<boolean, 'required'> {
  return scalar((v) => typeof v === 'boolean', 'expected true or false');
}

export function string(): Field<string, 'required'> {
  return scalar((v) => typeof v === 'string', 'expected a string');
}

export function oneOf<const T extends string>(choices: readonly T[]): Field<T, 'required'> {
  return field((raw, path) => {
    if (typeof raw === 'string' && (choices as readonly string[]).includes(raw)) return raw as T;
    const near = typeof raw === 'string' ? didYouMean(raw, choices) : '';
    throw new ConfigError(path, `expected one of ${choices.join(', ')}, got ${describe(raw)}${near}`);
  });
}

/** A value read by a function of its own (it throws ConfigError at the path it is given). */
export function field<T>(read: Read<T>): Field<T, 'required'> {
  return new Field(read, neverAbsent, 'required');
}

/**
 * A value read by another module's strict parser whose errors are relative to the value itself
 * (a component's parseConfig): they are re-rooted at `path`; any other error becomes one there.
 */
export function parsedBy<T>(parse: (raw: unknown) => T): Field<T, 'required'> {
  return field((raw, path) => {
    try {
      return parse(raw);
    } catch (err) {
      if (err instanceof ConfigError) throw path ? err.under(path) : err;
      throw new ConfigError(path, (err as Error).message);
    }
  });
}

/** What a bad value was, for an error message: its kind, or a short excerpt — never a whole file. */
export function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'a mapping';
  if (typeof v === 'string') return v.length > 60 ? `${JSON.stringify(v.slice(0, 60))}…` : JSON.stringify(v);
  return String(v);
}

function scalar<T>(ok: (v: unknown) => boolean, expected: string): Field<T, 'required'> {
  return field((raw, path) => {
    if (!ok(raw)) throw new ConfigError(path, `${expected}, got ${describe(raw)}`);
    return raw as T;
  });
}

function mapping(raw: unknown, path: string, what = 'a mapping'): Record<string, unknown> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new ConfigError(path, `expected ${what}, got ${describe(raw)}`);
  }
  return raw as Record<string, unknown>;
}

function unknownKey(path: string, key: string, known: readonly string[], noun: string): ConfigError {
  const suggestion = didYouMean(key, known);
  return new ConfigError(
    path,
    `unknown ${noun}${suggestion}${known.length ? ` (known: ${known.join(', ')})` : ''}`,
  );
}

function fresh<T>(value: T): T {
  if (Array.isArray(value)) return [...value] as T;
  return typeof value === 'object' && value !== null ? { ...value } : value;
}

function neverAbsent(path: string): never {
  throw new ConfigError(path, 'missing');
}

function join(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}
