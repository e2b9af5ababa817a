/**
 * The prompt that asks a model to write `filter(text, query)` for one large tool output. The model
 * sees the output bounded to maxChars (its head and tail, with the cut said plainly), the command
 * that produced it and the query, and is told the sandbox's rules: plain JavaScript, no imports or
 * I/O, the RE2 helpers, and (unless rewriting is allowed) that the result may only delete.
 */
export interface FilterPromptInput {
  text: string;
  query: string;
  command?: string;
  maxChars: number;
  /** true: free rewording is allowed; false: the result must be an in-order subsequence. */
  rewrite: boolean;
}

export function filterPrompt(p: FilterPromptInput): { system: string; prompt: string } {
  const rule = p.rewrite
    ? 'The result must be shorter than the input; it may reword.'
    : 'The result may ONLY delete from the input: whole lines, records, or whole words within lines (never cut a word short). ' +
      'Never add, reorder or change characters: a result that is not an in-order subsequence of the input is rejected.';
  const system = [
    'You write one small JavaScript function that cuts a large tool output down to what an AI coding agent needs for its current task.',
    'Write `function filter(text, query) { … }` returning a string. It runs in a bare sandbox: no imports, no require, no I/O, no console, 2 seconds at most.',
    'Helpers (RE2 syntax: no look-around or back-references; flags is an optional string of i, m, s):',
    '  re_match(pattern, s, flags) → true if pattern matches anywhere in s',
    '  re_findall(pattern, s, flags) → array of matches (group 1 when there is one group, arrays of groups for more)',
    '  re_sub(pattern, replacement, s, flags) → s with every match replaced ($1 refers to a group)',
    '  re_split(pattern, s, flags) → array of pieces',
    rule,
    'Keep everything the task may need: errors, failures, warnings, the lines the query is about, and enough context around them; drop repetition and noise.',
    'The code must work on the whole output, which may be longer than the excerpt you see.',
    'Reply with the function in one ```javascript block and nothing else.',
  ].join('\n');
  const shown = excerpt(p.text, p.maxChars);
  const lines = p.text.split('\n').length;
  const prompt = [
    p.command ? `Command: ${p.command}` : undefined,
    `Query (what the agent is working on): ${p.query || '(none given)'}`,
    `Output: ${p.text.length} characters, ${lines} lines${shown.length < p.text.length ? '; the excerpt below shows its start and end' : ''}.`,
    `<output>\n${shown}\n</output>`,
  ]
    .filter((x) => x !== undefined)
    .join('\n\n');
  return { system, prompt };
}

/** The text itself, or its first three quarters and last quarter of maxChars with the cut marked. */
function excerpt(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const head = Math.floor(maxChars * 0.75);
  const tail = maxChars - head;
  const cut = text.length - head - tail;
  return `${text.slice(0, head)}\n[… ${cut} characters not shown …]\n${text.slice(text.length - tail)}`;
}
