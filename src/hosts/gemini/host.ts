/**
 * Gemini CLI, as cg plugs into it: an AfterTool hook that hands the compacted output back as a tail
 * call to cg's own MCP tool cg_expand (tools.ts says why and how), so `cg init gemini` registers
 * `cg mcp` beside the hook (mcp-server.ts). `cg wrap gemini` runs it through cg proxy, which serves the
 * Gemini API (wrap.ts, proxy-doctor.ts). What Gemini CLI itself shows of a long output: limits.ts.
 */
import { objectAt, stringAt } from '../../json/payload.js';
import { replaceOutput } from '../hook/replace.js';
import type { Host } from '../host.js';
import { GEMINI_LIMIT } from './limits.js';
import { GEMINI_MCP_TOOL, WRAP_CLOSE, WRAP_OPEN } from './protocol.js';
import { GEMINI_PROXY_DOCTOR } from './proxy-doctor.js';
import { GEMINI_WRAP } from './wrap.js';

export const GEMINI: Host = {
  name: 'gemini',
  title: 'Gemini CLI',
  limit: GEMINI_LIMIT,
  stats: {
    name: 'gemini',
    aliases: ['gemini', 'gemini-cli'],
    detectEnv: 'GEMINI_CLI',
    shows: '≤40,000 chars whole, else 8 K + 32 K of the ends',
  },
  hook: {
    AfterTool: replaceOutput(async () => (await import('./tools.js')).GEMINI_TOOLS),
  },
  // Its user-agent names `GeminiCLI`.
  sentRequest: (header) => /GeminiCLI/i.test(header('user-agent') ?? ''),
  wrap: GEMINI_WRAP,
  proxyDoctor: GEMINI_PROXY_DOCTOR,
  instructionsFile: 'GEMINI.md',
  alsoInit: async (text, uninstall, invocation) =>
    (await import('./mcp-server.js')).geminiMcpEdit(text, uninstall, invocation),
  doctorProblems: async (file, place) => (await import('./mcp-server.js')).geminiProblems(file, place),
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
    // A getter: its 3,000 lines are made when `cg doctor` sends the probe, not on every
    // pipe and hook call that loads the host table.
    get payload() {
      return {
        hook_event_name: 'AfterTool',
        tool_name: 'run_shell_command',
        tool_input: { command: 'seq 1 3000' },
        tool_response: {
          llmContent: `${WRAP_OPEN}Output: ${Array.from({ length: 3000 }, (_, i) => String(i + 1)).join('\n')}\nProcess Group PGID: 1${WRAP_CLOSE}`,
          returnDisplay: '',
        },
      };
    },
    check(answer) {
      const tail = objectAt(answer, 'hookSpecificOutput', 'tailToolCallRequest');
      const name = stringAt(tail, 'name');
      if (name === undefined || !objectAt(tail, 'args')) {
        return 'the answer has no hookSpecificOutput.tailToolCallRequest {name, args}';
      }
      return name === GEMINI_MCP_TOOL ? undefined : `the tail call names ${name}, not ${GEMINI_MCP_TOOL}`;
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
