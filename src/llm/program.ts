/**
 * Finds the filter program in a cheap model's reply. Models wrap code in Markdown fences, often
 * after a draft or an example, so the last fenced block that defines `filter` wins; a bare reply
 * that is itself the program is accepted too. Nothing is executed or validated here: the sandbox
 * reports a program that does not parse or defines no filter.
 */

// An opening fence (``` or longer, optionally tagged js/javascript/none) at the start of a line,
// then everything up to a closing fence of the same length on its own line.
const FENCE = /^[ \t]*(`{3,})[ \t]*([\w+-]*)[^\n]*\n([\s\S]*?)^[ \t]*\1[ \t]*$/gm;
// `function filter(`, `filter = (…) =>`, `filter = function`: how a program can define it.
const DEFINES_FILTER = /\bfunction\s+filter\s*\(|\bfilter\s*=\s*(?:async\s+)?(?:function\b|\(|[\w$]+\s*=>)/;
const JS_TAGS = new Set(['', 'js', 'javascript', 'mjs', 'cjs']);
// Models used to modules write `export function filter`: the sandbox runs a script, where that is a
// syntax error, so the keyword goes.
const EXPORT = /^([ \t]*)export\s+(?:default\s+)?(?=(?:async\s+)?function\b|const\b|let\b|var\b)/gm;

/** The program in a model's reply: the last fenced ```js / ```javascript / ``` block that defines `filter`, else the whole reply when it defines `function filter` itself; undefined when there is none. */
export function extractProgram(reply: string): string | undefined {
  let found: string | undefined;
  for (const m of reply.matchAll(FENCE)) {
    const tag = (m[2] ?? '').toLowerCase();
    const body = m[3] ?? '';
    if (JS_TAGS.has(tag) && DEFINES_FILTER.test(body)) found = body;
  }
  if (found !== undefined) return found.replace(/\s+$/, '\n').replace(EXPORT, '$1');
  if (!/\bfunction\s+filter\s*\(/.test(reply)) return undefined;
  // A reply cut off before its closing fence still opens with one: drop it, and a stray closer.
  const bare = reply.replace(/^\s*`{3,}[^\n]*\n/, '').replace(/\n[ \t]*`{3,}[ \t]*$/, '');
  return `${bare.trim()}\n`.replace(EXPORT, '$1');
}
