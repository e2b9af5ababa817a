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
  const carriers = new Set(t.outputs.map((o) => o.messageIndex));
  const userTurns: number[] = [];
  let assistant: number | undefined;
  t.messages.forEach((m, i) => {
    if (m.role === 'user' && !carriers.has(i) && m.text.trim() !== '') userTurns.push(i);
    if (m.role === 'assistant' && m.text.trim() !== '') assistant = i;
  });
  const picked = new Set<number>();
  if (userTurns.length > 0) {
    picked.add(userTurns[0]!);
    picked.add(userTurns[userTurns.length - 1]!);
  }
  if (assistant !== undefined) picked.add(assistant);
  const parts = [...picked].sort((a, b) => a - b).map((i) => t.messages[i]!.text.slice(0, MAX_PART_CHARS));
  const query = parts.join('\n').trim();
  return query === '' ? undefined : query;
}
