/**
 * The query a transcript implies, for query-aware components (extract) when the user gave no
 * --query: the task (the first user turn) plus the latest user turn and the latest assistant turn.
 * A "user turn" is a user message the person wrote, not one that only carries tool results: those
 * are the outputs being judged, and would match everything. The assistant turn includes its
 * rendered tool calls (`[tool_use Bash: pytest -x]`), which name what the agent is looking at.
 */
import type { Transcript } from './transcript.js';

/** Cap per part: a pasted 50 KB task would otherwise make every line of every output "relevant". */
const MAX_PART_CHARS = 4000;

export function transcriptQuery(t: Pick<Transcript, 'format' | 'messages' | 'outputs'>): string | undefined {
  if (t.format === 'text') return undefined;
  const { messages } = t;
  // Found from each end, so a long session's text is read for a few messages, not all of them (a
  // carried message reads its text from the body when asked, src/proxy/turn/carried.ts).
  const carries = new Uint8Array(messages.length);
  for (const o of t.outputs)
    if (o.messageIndex >= 0 && o.messageIndex < messages.length) carries[o.messageIndex] = 1;
  const userTurn = (i: number) => {
    const m = messages[i]!;
    return m.role === 'user' && carries[i] === 0 && m.text.trim() !== '';
  };
  const assistantTurn = (i: number) => {
    const m = messages[i]!;
    return m.role === 'assistant' && m.text.trim() !== '';
  };
  const picked = new Set<number>();
  let first = 0;
  while (first < messages.length && !userTurn(first)) first++;
  if (first < messages.length) {
    picked.add(first);
    let last = messages.length - 1;
    while (!userTurn(last)) last--;
    picked.add(last);
  }
  let assistant = messages.length - 1;
  while (assistant >= 0 && !assistantTurn(assistant)) assistant--;
  if (assistant >= 0) picked.add(assistant);
  const parts = [...picked].sort((a, b) => a - b).map((i) => messages[i]!.text.slice(0, MAX_PART_CHARS));
  const query = parts.join('\n').trim();
  return query === '' ? undefined : query;
}
