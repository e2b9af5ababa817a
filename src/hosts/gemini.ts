/**
 * Gemini CLI, as cg plugs into it: an AfterTool hook. Verified on 0.61.0 (test/clients): AfterTool
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
import { languageOfPath } from '../code/languages.js';
import { type AnswerContext, type Host, isObject, type Replaceable, type ToolShape } from './host.js';

const WRAP_OPEN = '<untrusted_context>\n';
const WRAP_CLOSE = '\n</untrusted_context>';
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
  return typeof response.llmContent === 'string' ? unwrap(response.llmContent) : undefined;
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
    const command = typeof input.command === 'string' ? input.command : undefined;
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
    const path = typeof input.file_path === 'string' ? input.file_path : undefined;
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

/** The MCP tool name Gemini CLI gives cg_expand of a server registered as "cg". */
export const GEMINI_MCP_TOOL = 'mcp_cg_cg_expand';

export const GEMINI: Host = {
  name: 'gemini',
  title: 'Gemini CLI',
  settingsFile(scope, env, cwd, home) {
    const dir =
      scope === 'project'
        ? `${cwd}/.gemini`
        : env.GEMINI_CLI_HOME
          ? `${env.GEMINI_CLI_HOME}/.gemini`
          : `${home}/.gemini`;
    return `${dir}/settings.json`;
  },
  entries: [
    {
      event: 'AfterTool',
      matcher: 'run_shell_command|read_file|read_many_files|grep_search|search_file_content|glob|web_fetch',
      args: ['gemini', '--mcp-tool', GEMINI_MCP_TOOL],
      // Milliseconds, in Gemini CLI's settings.
      timeout: 10_000,
    },
  ],
  legacyEvents: [],
  version: {
    bin: 'gemini',
    args: ['--version'],
    parse: (out) => /(\d+\.\d+\.\d+)/.exec(out)?.[1],
    minimum: '0.61.0',
    why: 'the AfterTool tail call cg answers with (tailToolCallRequest) was checked on Gemini CLI 0.61.0',
  },
  probe: {
    payload: {
      hook_event_name: 'AfterTool',
      tool_name: 'run_shell_command',
      tool_input: { command: 'seq 1 3000' },
      tool_response: {
        llmContent: `${WRAP_OPEN}Output: ${Array.from({ length: 3000 }, (_, i) => String(i + 1)).join('\n')}\nProcess Group PGID: 1${WRAP_CLOSE}`,
        returnDisplay: '',
      },
    },
    check(answer) {
      const out = isObject(answer) && isObject(answer.hookSpecificOutput) ? answer.hookSpecificOutput : {};
      const tail = out.tailToolCallRequest;
      if (!isObject(tail) || typeof tail.name !== 'string' || !isObject(tail.args)) {
        return 'the answer has no hookSpecificOutput.tailToolCallRequest {name, args}';
      }
      return tail.name === GEMINI_MCP_TOOL
        ? undefined
        : `the tail call names ${tail.name}, not ${GEMINI_MCP_TOOL}`;
    },
  },
  afterInstall: [
    'it applies to Gemini CLI sessions started from now on (hooks and the cg MCP server); check them with /hooks and /mcp',
  ],
  hookGaps: [
    'a result carrying an error reaches the model whole (verbatim errors); `cg wrap gemini` reaches it with an API key or a gateway (not with Google sign-in or Vertex AI)',
  ],
  // Gemini CLI's run_shell_command sets GEMINI_CLI=1 (its docs/tools/shell.md; seen in a real call).
  agentEnv: ['GEMINI_CLI'],
  // cg init gemini registers it too, beside the hook that needs it.
  mcpAdd: (cg) => `gemini mcp add --scope user cg ${cg} mcp`,
};

/** The name cg's MCP server is registered under in Gemini CLI's settings (its tools: mcp_cg_…). */
export const GEMINI_MCP_SERVER = 'cg';
