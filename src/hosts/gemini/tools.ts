/**
 * Gemini CLI's tools whose output cg replaces in its AfterTool hook (the row is host.ts). Verified on 0.61.0 (test/clients): AfterTool
 * has no field that replaces a tool's output in place — `hookSpecificOutput.tool_output` is
 * ignored, and `decision: "deny"` turns the result into an error the model reads as a failure. What
 * it has is `hookSpecificOutput.tailToolCallRequest {name, args}`: the host runs that tool next and
 * its result replaces the original one, under the original call's name and id. So cg stashes the
 * compacted text and asks for a tail call to cg's own MCP tool `cg_expand` with that key; the model
 * then reads the compacted text (its markers expand to the originals). This needs `cg mcp`
 * registered as a trusted MCP server (`cg init gemini` does both), and its tool name in the hook
 * command (`--mcp-tool mcp_cg_cg_expand`); without it the hook answers nothing.
 *
 * run_shell_command's result reads `Output: …` then trailer lines (`Exit Code: N`, `Signal: …`,
 * `Process Group PGID: …`), inside `<untrusted_context>` that the host wraps around the tail result
 * again. cg compacts only the output and keeps the rest byte for byte, so the exit code the model
 * reads is the command's own. A result carrying `error` is left alone (verbatim errors).
 */
import { languageOfPath } from '../../code/languages.js';
import { isObject, stringAt } from '../../json/payload.js';
import type { AnswerContext, Replaceable, ToolShape } from '../host.js';
import { WRAP_CLOSE, WRAP_OPEN } from './protocol.js';

/** The lines run_shell_command appends after the output, in its own order. */
const TRAILER = /\n(?:Error: |Exit Code: |Signal: |Background PIDs: |Process Group PGID: )/;

/** The text inside the host's wrapper, which the host puts around the tail result again. */
function unwrap(content: string): string {
  return content.startsWith(WRAP_OPEN) && content.endsWith(WRAP_CLOSE)
    ? content.slice(WRAP_OPEN.length, -WRAP_CLOSE.length)
    : content;
}

function llmText(response: unknown): string | undefined {
  if (!isObject(response) || (response.error !== undefined && response.error !== null)) return undefined;
  const content = stringAt(response, 'llmContent');
  return content === undefined ? undefined : unwrap(content);
}

/** A tail call to cg_expand on the stashed replacement. */
async function tailCall(updated: unknown, ctx: AnswerContext): Promise<unknown> {
  if (ctx.mcpTool === undefined || typeof updated !== 'string') return undefined;
  const key = await ctx.stash(updated);
  if (key === undefined) return undefined;
  return {
    hookSpecificOutput: {
      hookEventName: 'AfterTool',
      tailToolCallRequest: { name: ctx.mcpTool, args: { key } },
    },
  };
}

const SHELL: ToolShape = {
  tools: ['run_shell_command'],
  read(response, input): Replaceable | undefined {
    const text = llmText(response);
    if (text === undefined || !text.startsWith('Output: ')) return undefined;
    const body = text.slice('Output: '.length);
    const cut = TRAILER.exec(body);
    const output = cut ? body.slice(0, cut.index) : body;
    const trailer = cut ? body.slice(cut.index) : '';
    const command = stringAt(input, 'command');
    return {
      texts: [{ text: output, ...(command !== undefined ? { command } : {}) }],
      rebuild: ([out]) => `Output: ${out}${trailer}`,
    };
  },
  answer: tailCall,
};

/** read_file, the search tools and other MCP servers' tools: the whole text is the output. */
const TEXT: ToolShape = {
  tools: ['read_file', 'read_many_files', 'grep_search', 'search_file_content', 'glob', 'web_fetch', 'mcp_*'],
  read(response, input): Replaceable | undefined {
    const text = llmText(response);
    if (text === undefined) return undefined;
    const path = stringAt(input, 'file_path');
    const lang = path !== undefined ? languageOf(path) : undefined;
    return {
      texts: [{ text, ...(lang ? { lang, preset: 'coding' } : {}) }],
      rebuild: ([out]) => out,
    };
  },
  answer: tailCall,
};

function languageOf(path: string): string | undefined {
  return languageOfPath(path)?.name;
}

export const GEMINI_TOOLS: readonly ToolShape[] = [SHELL, TEXT];
