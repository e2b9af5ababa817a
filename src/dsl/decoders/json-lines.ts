/**
 * What the decoders share: a line parsed as one JSON object (or undefined: not JSON, or not an
 * object), and the lines a decoder writes.
 */
import { objectAt } from '../../json/payload.js';
import type { Doc, Line } from '../stages.js';

export type Json = Record<string, unknown>;

/** The line as a JSON object, when it is one; cheap to refuse anything that does not look like one. */
export function objectOf(text: string): Json | undefined {
  const t = text.trim();
  if (!t.startsWith('{') || !t.endsWith('}')) return undefined;
  try {
    return objectAt(JSON.parse(t));
  } catch {
    return undefined;
  }
}

/** The line as a JSON document of any kind (a linter's array report), when it is one. */
export function documentOf(text: string): unknown {
  const t = text.trim();
  if (!(t.startsWith('{') || t.startsWith('['))) return undefined;
  try {
    return JSON.parse(t) as unknown;
  } catch {
    return undefined;
  }
}

export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
export const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);

/** A text's lines as written lines of the doc (a trailing newline ends the last, it adds none). */
export function writtenLines(text: string, doc: Doc): Line[] {
  const body = text.endsWith('\n') ? text.slice(0, -1) : text;
  return body.split('\n').map((t) => ({ text: t.endsWith('\r') ? t.slice(0, -1) : t, eol: doc.nl, src: 0 }));
}

export const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
