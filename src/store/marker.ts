/**
 * The public marker format `<<cg:KEY>>` and its hint (DESIGN §5), and lenient key extraction for
 * `cg expand`: a bare key, the full marker, `cg:KEY`, `<cg:KEY>`, upper-case hex, markers inside
 * surrounding text, or JSON `{"marker"|"id"|"key": …}`.
 */
import { stringAt } from '../json/payload.js';
import { isKey } from './keys.js';

export const DEFAULT_HINT = ' [full output: cg expand {key}{args}]';

/** Matches a marker anywhere; group 1 is the key. */
export const MARKER_RE = /<<cg:([0-9a-f]{16})>>/g;

export function marker(key: string): string {
  return `<<cg:${key}>>`;
}

/** The hint template with {key} and {args} filled in; args gets a leading space when present. */
export function hint(template: string, key: string, args?: string): string {
  return template.replaceAll('{key}', key).replaceAll('{args}', args ? ` ${args}` : '');
}

export function hasMarker(text: string): boolean {
  return text.includes('<<cg:') && /<<cg:[0-9a-f]{16}>>/.test(text);
}

/** Every distinct marker key in text, in order of first appearance. */
export function markerKeys(text: string): string[] {
  const seen = new Set<string>();
  for (const m of text.matchAll(MARKER_RE)) seen.add(m[1]!);
  return [...seen];
}

export type KeyParse = { ok: true; keys: string[] } | { ok: false; reason: string };

/**
 * What an error echoes of a token given as a key: enough to recognise it, never a pasted output
 * (a 100 KB token once came back whole on stderr, into the agent's context).
 */
const SHOWN_CHARS = 40;

/** A token that is not a key, as an error shows it: quoted, control characters escaped, cut short. */
export function shownToken(token: string): string {
  const head = JSON.stringify(token.slice(0, SHOWN_CHARS));
  return token.length > SHOWN_CHARS ? `${head.slice(0, -1)}…" (${token.length} characters)` : head;
}

/**
 * Reads the keys a user or agent meant. Accepts one argument or stdin text; a token that looks like
 * a key attempt but is not 16 hex digits is refused rather than guessed at.
 */
export function parseKeys(input: string): KeyParse {
  const text = input.trim();
  if (!text) return { ok: false, reason: 'no key given' };
  if (text.startsWith('{')) {
    try {
      const obj: unknown = JSON.parse(text);
      for (const field of ['marker', 'id', 'key']) {
        const v = stringAt(obj, field);
        if (v !== undefined) return parseKeys(v);
      }
      return { ok: false, reason: 'JSON input needs a "marker", "id" or "key" field' };
    } catch {
      // not JSON after all: fall through to text scanning
    }
  }
  const found: string[] = [];
  const add = (k: string) => {
    const key = k.toLowerCase();
    if (!found.includes(key)) found.push(key);
  };
  // Marker-like forms anywhere in the text: <<cg:K>>, <cg:K>, cg:K (any case).
  const forms = /<{0,2}cg:([0-9a-zA-Z]*)>{0,2}/gi;
  let sawForm = false;
  for (const m of text.matchAll(forms)) {
    sawForm = true;
    const k = m[1]!;
    if (!isKey(k.toLowerCase()))
      return { ok: false, reason: `not a cg key: ${shownToken(m[0])} (expected 16 hex digits)` };
    add(k);
  }
  if (sawForm) return { ok: true, keys: found };
  for (const tok of text.split(/[\s,]+/)) {
    if (!tok) continue;
    if (!isKey(tok.toLowerCase()))
      return { ok: false, reason: `not a cg key: ${shownToken(tok)} (expected 16 hex digits)` };
    add(tok);
  }
  return found.length ? { ok: true, keys: found } : { ok: false, reason: 'no key given' };
}
