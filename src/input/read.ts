/**
 * Entry point of input/: detects the format of stdin and reads it into a Transcript.
 *
 * Only input starting with `{` or `[` is tried as JSON, and only a request body is read as one:
 * anthropic when its messages carry tool_use/tool_result blocks (or, with no OpenAI-only marks,
 * Anthropic-only shapes such as a top-level system or text blocks); openai for any other list of
 * chat messages; responses for an `input` array of typed items; gemini for a `contents` array of
 * {role, parts} (the Gemini API's generateContent). Any other JSON (say, a `gh api`
 * response) is itself a tool output, so it is text. An explicit format that does not fit the input
 * is a UsageError with one line saying why.
 */

import { UsageError } from '../errors.js';
import { skipJsonSpace } from '../json/lexical.js';
import { type JsonNode, member, parseJsonSpans, stringOf } from '../json/spans.js';
import { hasTopLevelKey } from '../json/text.js';
import { readAnthropic } from './anthropic.js';
import { messageList } from './builder.js';
import { geminiContents, readGemini } from './gemini.js';
import { readOpenAI } from './openai.js';
import { readResponses } from './responses.js';
import { readText } from './text.js';
import type { FormatChoice, InputFormat, ReadOptions, Transcript } from './transcript.js';

type RequestFormat = Exclude<InputFormat, 'text'>;

const NAMES: Record<RequestFormat, string> = {
  anthropic: 'an Anthropic Messages request body',
  openai: 'an OpenAI Chat Completions request body',
  responses: 'an OpenAI Responses request body',
  gemini: 'a Gemini API generateContent request body',
};

const CHAT_ROLES = new Set(['user', 'assistant', 'system', 'developer', 'tool', 'function']);
const OPENAI_ROLES = new Set(['system', 'developer', 'tool', 'function']);
const OPENAI_KEYS = ['tool_calls', 'tool_call_id', 'function_call'];
const OPENAI_PARTS = new Set(['image_url', 'input_audio', 'file', 'refusal']);
const ANTHROPIC_TOOL_BLOCKS = new Set(['tool_use', 'tool_result']);
const ANTHROPIC_BLOCKS = new Set(['text', 'image', 'document', 'thinking', 'redacted_thinking']);
const RESPONSES_ITEMS = new Set([
  'message',
  'function_call',
  'function_call_output',
  'custom_tool_call',
  'custom_tool_call_output',
  'local_shell_call',
  'local_shell_call_output',
  'reasoning',
]);

/** What a list of chat messages says about its dialect. */
interface Evidence {
  anthropicTools: boolean;
  /** A short description of the first OpenAI-only mark, e.g. `a "tool" role message`. */
  openaiMark: string | undefined;
  anthropicShape: boolean;
}

/**
 * What the messages say, read until a tool_use/tool_result block: that decides every question asked
 * of it (classify says anthropic, mismatch judges either choice by it), so a Claude Code session is
 * judged by its first few messages rather than by all of its tens of thousands.
 */
function evidence(root: JsonNode, messages: readonly JsonNode[]): Evidence {
  const ev: Evidence = {
    anthropicTools: false,
    openaiMark: undefined,
    anthropicShape: member(root, 'system') !== undefined,
  };
  for (const m of messages) {
    const role = stringOf(member(m, 'role'));
    // Claude Code (2.1.3xx) sends "system" messages inside an Anthropic body that also has a
    // top-level system prompt, which no OpenAI body has: there the role is no OpenAI mark.
    const anthropicSystem = role === 'system' && member(root, 'system') !== undefined;
    if (role !== undefined && OPENAI_ROLES.has(role) && !anthropicSystem)
      ev.openaiMark ??= `a "${role}" role message`;
    for (const key of OPENAI_KEYS) if (member(m, key) !== undefined) ev.openaiMark ??= `"${key}"`;
    const content = member(m, 'content');
    for (const block of content?.type === 'array' ? content.items : []) {
      const type = stringOf(member(block, 'type'));
      if (type === undefined) continue;
      if (ANTHROPIC_TOOL_BLOCKS.has(type)) {
        ev.anthropicTools = true;
        return ev;
      } else if (OPENAI_PARTS.has(type)) ev.openaiMark ??= `"${type}" content parts`;
      else if (ANTHROPIC_BLOCKS.has(type)) ev.anthropicShape = true;
    }
  }
  return ev;
}

function isChatMessage(node: JsonNode): boolean {
  const role = stringOf(member(node, 'role'));
  return role !== undefined && CHAT_ROLES.has(role);
}

function isResponsesItem(node: JsonNode): boolean {
  const type = stringOf(member(node, 'type'));
  if (type !== undefined) return RESPONSES_ITEMS.has(type);
  return isChatMessage(node);
}

const GEMINI_ROLES = new Set(['user', 'model', 'function']);

/** A Gemini content: {role?, parts: [...]}. */
function isGeminiContent(node: JsonNode): boolean {
  const role = member(node, 'role');
  if (role !== undefined && !(role.type === 'string' && GEMINI_ROLES.has(role.value))) return false;
  return member(node, 'parts')?.type === 'array';
}

/** The request format of a parsed body, or undefined when it is not a request body. */
function classify(root: JsonNode): RequestFormat | undefined {
  if (root.type !== 'object' && root.type !== 'array') return undefined;
  const contents = geminiContents(root);
  if (contents && contents.length > 0 && contents.every(isGeminiContent)) return 'gemini';
  const messages = messageList(root);
  if (messages !== undefined) {
    // An empty list is a request only inside a body that names a model.
    if (messages.length === 0 && member(root, 'model') === undefined) return undefined;
    if (!messages.every(isChatMessage)) return undefined;
    const ev = evidence(root, messages);
    if (ev.anthropicTools) return 'anthropic';
    if (ev.openaiMark !== undefined) return 'openai';
    return ev.anthropicShape ? 'anthropic' : 'openai';
  }
  const input = member(root, 'input');
  if (input?.type === 'array' && input.items.length > 0 && input.items.every(isResponsesItem)) {
    return 'responses';
  }
  return undefined;
}

/** Why root is not a body of the chosen format, or undefined when it fits. */
function mismatch(choice: RequestFormat, root: JsonNode): string | undefined {
  if (choice === 'gemini') {
    const contents = geminiContents(root);
    if (contents === undefined) return root.type === 'object' ? 'no "contents" array' : 'not a JSON object';
    if (!contents.every(isGeminiContent))
      return '"contents" holds something other than {role, parts} objects';
    return undefined;
  }
  if (choice === 'responses') {
    const input = member(root, 'input');
    if (input?.type === 'string') return undefined;
    if (input?.type !== 'array') return root.type === 'object' ? 'no "input" array' : 'not a JSON object';
    if (!input.items.every((i) => i.type === 'object')) return '"input" holds something other than objects';
    return undefined;
  }
  const messages = messageList(root);
  if (messages === undefined) return 'no "messages" array';
  if (!messages.every((m) => stringOf(member(m, 'role')) !== undefined)) {
    return '"messages" holds something other than {role, content} objects';
  }
  const ev = evidence(root, messages);
  if (choice === 'anthropic' && !ev.anthropicTools && ev.openaiMark !== undefined) {
    return `it has ${ev.openaiMark}, which is OpenAI Chat Completions`;
  }
  if (choice === 'openai' && ev.anthropicTools)
    return 'it has tool_use/tool_result blocks, which is Anthropic';
  return undefined;
}

/** The span tree of raw when it might be a request body (auto-detection); undefined means text. */
function parseCandidate(raw: string): JsonNode | undefined {
  const at = skipJsonSpace(raw, 0);
  const c = raw.charCodeAt(at);
  if (c === 0x7b) {
    if (!hasTopLevelKey(raw, at, ['messages', 'input', 'contents'])) return undefined;
  } else if (c === 0x5b) {
    const first = skipJsonSpace(raw.slice(at + 1, at + 1 + 4096), 0) + at + 1;
    if (raw.charCodeAt(first) !== 0x7b || !hasTopLevelKey(raw, first, ['role'])) return undefined;
  } else {
    return undefined;
  }
  try {
    return parseJsonSpans(raw);
  } catch {
    return undefined;
  }
}

export function detectFormat(raw: string): InputFormat {
  const root = parseCandidate(raw);
  return (root && classify(root)) ?? 'text';
}

function readAs(format: RequestFormat, raw: string, root: JsonNode, opts: ReadOptions): Transcript {
  if (format === 'anthropic') return readAnthropic(raw, root, opts);
  if (format === 'openai') return readOpenAI(raw, root, opts);
  if (format === 'gemini') return readGemini(raw, root, opts);
  return readResponses(raw, root, opts);
}

export function readTranscript(raw: string, choice: FormatChoice, opts: ReadOptions): Transcript {
  if (choice === 'text') return readText(raw, opts);
  if (choice === 'auto') {
    const root = parseCandidate(raw);
    const format = root && classify(root);
    return root && format ? readAs(format, raw, root, opts) : readText(raw, opts);
  }
  let root: JsonNode;
  try {
    root = parseJsonSpans(raw);
  } catch (e) {
    throw new UsageError(`input is not ${NAMES[choice]} (not valid JSON: ${(e as Error).message})`);
  }
  const why = mismatch(choice, root);
  if (why !== undefined) throw new UsageError(`input is not ${NAMES[choice]} (${why})`);
  return readAs(choice, raw, root, opts);
}
