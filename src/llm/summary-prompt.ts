/**
 * The prompt that asks a model to summarise the stale middle of a conversation. It is grounded in
 * the task: the model sees the first user turn, the span to summarise (or, when rolling forward,
 * the previous summary and only the messages since), and the recent turns the agent continues
 * from. Tool outputs are masked unless include_tool_calls is on, except tool errors, which the
 * model always sees (what failed is what a summary must keep). Everything the model sees is
 * bounded (maxChars), so a huge history costs a bounded request.
 */
import type { MessageView, ToolOutput } from '../component.js';

export type SummaryLevel = 'concise' | 'regular' | 'highly_detailed';

const LENGTH: Record<SummaryLevel, { words: string; maxTokens: number }> = {
  concise: { words: 'at most about 150 words', maxTokens: 400 },
  regular: { words: 'about 300 to 500 words', maxTokens: 1000 },
  highly_detailed: {
    words: 'up to about 1200 words, keeping exact identifiers, paths, commands and error messages',
    maxTokens: 2500,
  },
};

export interface SummaryPromptInput {
  messages: readonly MessageView[];
  /** The tool outputs of the transcript (to mask them by message). */
  outputs: readonly ToolOutput[];
  /** Index of the first user message: the task. */
  task: number;
  /** The span to summarise now: [from, to). */
  from: number;
  to: number;
  /** The summary of the messages before `from`, when rolling forward. */
  previous?: string;
  /** The kept tail starts here. */
  recent: number;
  level: SummaryLevel;
  includeToolOutputs: boolean;
  maxChars: number;
}

export function summaryPrompt(p: SummaryPromptInput): { system: string; prompt: string; maxTokens: number } {
  const { words, maxTokens } = LENGTH[p.level];
  const system = [
    "You summarise the middle of an AI coding agent's conversation so that the agent can continue its task without it.",
    `Write ${words}. Keep what the agent needs: the state of the task, decisions and why, files and`,
    'symbols touched (with paths), commands run and their key results, errors (verbatim when short),',
    'what was tried and failed, and what remains to do. State only what the history shows; never',
    'invent results. Reply with the summary text only: no preamble, no headings about yourself.',
  ].join(' ');
  const masked = maskedTexts(p);
  const budget = Math.max(2000, p.maxChars);
  const section = (tag: string, indexes: number[], share: number) =>
    `<${tag}>\n${render(p.messages, masked, indexes, Math.floor(budget * share))}\n</${tag}>`;
  const range = (a: number, b: number) => Array.from({ length: Math.max(0, b - a) }, (_, i) => a + i);
  const parts = [section('task', [p.task], 0.1)];
  if (p.previous !== undefined) parts.push(`<previous_summary>\n${p.previous}\n</previous_summary>`);
  parts.push(section('history', range(p.from, p.to), 0.75));
  parts.push(section('recent', range(p.recent, p.messages.length), 0.15));
  parts.push(
    p.previous !== undefined
      ? 'Write one summary that replaces <previous_summary> and <history> together, for the agent that continues from <recent>.'
      : 'Summarise <history> for the agent that continues from <recent>.',
  );
  return { system, prompt: parts.join('\n\n'), maxTokens };
}

/**
 * Message texts with their tool outputs masked, unless the model may see them. An output an earlier
 * stage already rewrote no longer matches its message's text: a message that only answers a call
 * (a tool result) is then masked whole.
 */
function maskedTexts(p: SummaryPromptInput): Map<number, string> {
  const texts = new Map<number, string>();
  if (p.includeToolOutputs) return texts;
  for (const o of p.outputs) {
    // Errors stay in view: what failed is what a summary must not lose.
    if (o.isError) continue;
    const message = p.messages[o.messageIndex];
    const text = texts.get(o.messageIndex) ?? message?.text;
    if (text === undefined || o.text === '') continue;
    const note = `[tool output${o.toolName ? ` of ${o.toolName}` : ''}: ${o.text.length} chars, not shown]`;
    const at = text.indexOf(o.text);
    if (at >= 0) texts.set(o.messageIndex, text.slice(0, at) + note + text.slice(at + o.text.length));
    else if (message?.boundToPrevious) texts.set(o.messageIndex, note);
  }
  return texts;
}

/** `[i] role: text` per message, each cut in its middle to share `chars` fairly. */
function render(
  messages: readonly MessageView[],
  masked: ReadonlyMap<number, string>,
  indexes: readonly number[],
  chars: number,
): string {
  const each = Math.max(300, Math.floor(chars / Math.max(1, indexes.length)));
  return indexes
    .map((i) => {
      const m = messages[i];
      if (!m) return '';
      return `[${i}] ${m.role}: ${shorten(masked.get(i) ?? m.text, each)}`;
    })
    .join('\n');
}

function shorten(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = Math.ceil(max * 0.7);
  const tail = max - head;
  return `${text.slice(0, head)}\n[… ${text.length - max} chars not shown …]\n${text.slice(text.length - tail)}`;
}
