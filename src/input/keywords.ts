/**
 * Keywords for the query-aware components (extract, phi_evict): lower-cased words of three or more
 * letters, identifiers split at camelCase and snake_case humps as well as kept whole, with common
 * English and agent-chatter words dropped. Pure digits never count: line numbers and ids would
 * otherwise make every line of a file read "relevant". Deterministic and linear.
 */

const STOPWORDS = new Set(
  (
    'the and for with this that these those from into onto over under then than there their they them ' +
    'what when where which while who whom why how have has had having was were are been being will would ' +
    'shall should can could may might must not but also just only some any all each every both few more most ' +
    'other such own same very too out off about above below again once here our ours your yours its you she ' +
    'him her his hers let lets now use using used get got make made see look looking check run running ran ' +
    'file files line lines need needs want first last next new old yes okay please thanks thank done good ' +
    'sure like well way one two three does did doing don didn doesn isn aren wasn weren won shouldn can ' +
    'tool tools use result results output outputs true false null none'
  ).split(' '),
);

const WORD = /[A-Za-z][A-Za-z0-9_]*/g;
const HUMPS = /[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+/g;

function add(out: Set<string>, word: string): void {
  const w = word.toLowerCase();
  if (w.length >= 3 && !STOPWORDS.has(w) && !/^[0-9_]+$/.test(w)) out.add(w);
}

/** The keywords of a text, as a set. */
export function keywords(text: string, out = new Set<string>()): Set<string> {
  for (const m of text.matchAll(WORD)) {
    const word = m[0];
    add(out, word);
    // Only split words that have humps: most words are plain and this keeps the common path cheap.
    if (/[a-z][A-Z]|_/.test(word)) for (const part of word.match(HUMPS) ?? []) add(out, part);
  }
  return out;
}
