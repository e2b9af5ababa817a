/**
 * YAML text → a parsed document and its plain value, for config and filter files. Every problem is
 * a ConfigError naming the file: a syntax error (with its line), a duplicate key, and an alias bomb
 * ("billion laughs": a few lines whose aliases expand to gigabytes) refused by alias count before it
 * expands. A message from the parser is cut to a short excerpt, so a file that is not YAML at all
 * (a key file, an environment dump) is never echoed back in an error.
 *
 * Nor is a file that is YAML but not cg's: a mapping none of whose top-level keys is one the format
 * knows, or a near miss of one (`--config /etc/shadow`, a credentials JSON, an env file), is the
 * wrong file, said to be so without a word of it — its keys may be its secrets, and cg's stderr
 * often lands in an agent's context. Only in a file of cg's own format does an error quote a bad key
 * or value, as a short excerpt (config/fields.ts): that is what lets its author find the typo.
 */
import type { Document } from 'yaml';
import { ConfigError } from '../errors.js';
import { cjsExports } from '../lazy.js';
import { nearest } from './nearest.js';

export interface YamlFile {
  doc: Document.Parsed;
  value: unknown;
}

export interface YamlOptions {
  /** How many alias dereferences (times the aliases' size) toJS accepts. */
  maxAliasCount?: number;
  /** The error for a duplicate key, when the caller can say more than "duplicate key". */
  duplicateKey?: string;
  /** What the top-level mapping holds ("settings"): anything but a mapping (or nothing) is an error. */
  mappingOf: string;
  /** The top-level keys of the format, and what a file of it is called ("cg config"). */
  format?: { keys: readonly string[]; name: string };
}

const EXCERPT_CHARS = 80;

export async function parseYamlFile(text: string, file: string, opts: YamlOptions): Promise<YamlFile> {
  const yaml = cjsExports(await import('yaml'));
  let doc: Document.Parsed;
  try {
    doc = yaml.parseDocument(text, { prettyErrors: false, uniqueKeys: true });
  } catch (err) {
    throw new ConfigError('', `invalid YAML: ${excerpt(messageOf(err))}`, file);
  }
  const e = doc.errors[0];
  if (e) {
    const at = e.linePos?.[0]?.line ?? (e.pos ? lineAt(text, e.pos[0]) : undefined);
    const where = at !== undefined ? `line ${at}: ` : '';
    const what = e.code === 'DUPLICATE_KEY' ? (opts.duplicateKey ?? 'duplicate key') : excerpt(messageOf(e));
    throw new ConfigError('', `invalid YAML: ${where}${what}`, file);
  }
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: opts.maxAliasCount ?? 100 });
  } catch (err) {
    const message = messageOf(err);
    const why = /excessive alias count/i.test(message)
      ? 'YAML aliases expand too far (an alias bomb?); write the values out instead of aliasing them'
      : `invalid YAML: ${excerpt(message)}`;
    throw new ConfigError('', why, file);
  }
  // Said without the value: a file that is not YAML at all (a key, an environment dump) reads as
  // one long string, and is never echoed back.
  if (value !== null && value !== undefined && (typeof value !== 'object' || Array.isArray(value))) {
    const got = Array.isArray(value) ? 'a list' : `a ${typeof value}`;
    throw new ConfigError('', `expected a mapping of ${opts.mappingOf}, got ${got}`, file);
  }
  if (opts.format && value && !ofFormat(Object.keys(value), opts.format.keys)) {
    const { keys, name } = opts.format;
    throw new ConfigError(
      '',
      `is not a ${name}: none of its top-level keys is one (${keys.join(', ')})`,
      file,
    );
  }
  return { doc, value };
}

/** Whether any of a mapping's keys is one of the format's, or close enough to be a typo of one. */
function ofFormat(keys: readonly string[], known: readonly string[]): boolean {
  return keys.length === 0 || keys.some((k) => known.includes(k) || nearest(k, known) !== undefined);
}

function messageOf(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '';
}

function excerpt(s: string): string {
  // Control characters (a NUL-separated dump, escape sequences) are shown escaped, and cut short.
  const clean = s.replace(
    /[\u0000-\u001f\u007f]/g,
    (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`,
  );
  return clean.length > EXCERPT_CHARS ? `${clean.slice(0, EXCERPT_CHARS)}…` : clean;
}

function lineAt(text: string, pos: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < pos; i = text.indexOf('\n', i + 1)) line++;
  return line;
}
