/**
 * What a tool call's arguments say about its output: the shell command it ran and the file it read.
 * Arguments arrive as an object (Anthropic tool_use input) or as a JSON string that a model wrote and
 * may have malformed (OpenAI function.arguments); bad JSON simply yields nothing.
 */
import { stringAt, stringsAt } from '../json/payload.js';
import { type JsonNode, toValue } from '../json/spans.js';

export interface CallDetails {
  command?: string;
  path?: string;
}

/** A tool call as a reader remembers it until the matching output arrives. */
export interface CallInfo extends CallDetails {
  name?: string;
}

/** A shell that runs its `-c` argument: Codex's shell tool wraps every command in one. */
const SHELL = /^(?:\S*\/)?(?:ba|z|da|k)?sh$/;
const RUN_FLAG = /^-[a-z]*c$/;

function commandOf(args: unknown, key: string): string | undefined {
  const line = stringAt(args, key);
  if (line !== undefined) return line;
  // Codex-style argv arrays: ["bash", "-lc", "git status"] is the command `git status` (what
  // selects its filter), any other argv its words joined.
  const argv = stringsAt(args, key);
  if (argv === undefined || argv.length === 0) return undefined;
  const [shell, flag, script] = argv;
  if (argv.length === 3 && SHELL.test(shell!) && RUN_FLAG.test(flag!)) return script;
  return argv.join(' ');
}

/** Details from an already-parsed arguments object. */
export function detailsFromObject(args: unknown): CallDetails {
  const out: CallDetails = {};
  const command = commandOf(args, 'command') ?? commandOf(args, 'cmd');
  if (command !== undefined) out.command = command;
  for (const key of ['file_path', 'path', 'filename']) {
    const p = stringAt(args, key);
    if (p !== undefined) {
      out.path = p;
      break;
    }
  }
  return out;
}

/** Details from an arguments node: a JSON-encoded string (tolerating bad JSON) or an object. */
export function detailsFromArguments(node: JsonNode | undefined): CallDetails {
  if (node === undefined) return {};
  if (node.type === 'object') return detailsFromObject(toValue(node));
  if (node.type !== 'string') return {};
  const text = node.value.trim();
  if (!text.startsWith('{')) return {};
  try {
    return detailsFromObject(JSON.parse(text));
  } catch {
    return {};
  }
}

/** A one-line rendering of a call for message views, e.g. `[tool_use Bash: ls -la]`. */
export function renderCall(kind: string, call: CallInfo): string {
  const detail = call.command ?? call.path;
  const name = call.name ?? '?';
  return detail === undefined ? `[${kind} ${name}]` : `[${kind} ${name}: ${firstLine(detail)}]`;
}

function firstLine(s: string): string {
  const nl = s.indexOf('\n');
  const line = nl < 0 ? s : `${s.slice(0, nl)} …`;
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}
