/**
 * OpenCode, as cg plugs into it: a plugin file of cg's own (plugin.ts) that OpenCode calls after
 * each tool, on `tool.execute.after(input, output)` — checked on the pinned 1.18.33 that the
 * runtime really calls it after its bash tool and that the model reads what the plugin leaves in
 * `output.output`. The plugin runs `cg hook opencode`, answered by the shared replacement
 * machinery over OpenCode's bash shape (tools.ts); a failing run (exit ≠ 0) goes through the
 * tool-error gates. `cg wrap opencode` (wrap.ts) points its anthropic provider at a loopback
 * `cg proxy` for one run and reaches every tool. What OpenCode itself shows of a long output: limits.ts.
 */
import { stringAt } from '../../json/payload.js';
import { replaceOutput } from '../hook/replace.js';
import type { Host } from '../host.js';
import { OPENCODE_LIMIT } from './limits.js';
import { pluginCommand, pluginText } from './plugin.js';
import { OPENCODE_WRAP } from './wrap.js';

/** The event the plugin names in its payload. */
const EVENT = 'tool.execute.after';

export const OPENCODE: Host = {
  name: 'opencode',
  title: 'OpenCode',
  limit: OPENCODE_LIMIT,
  stats: {
    name: 'opencode',
    aliases: ['opencode', 'opencode-ai'],
    detectEnv: 'OPENCODE',
    shows: '≤51,200 bytes and 2,000 lines, else the tail',
  },
  hook: {
    [EVENT]: replaceOutput(async () => (await import('./tools.js')).OPENCODE_TOOLS),
  },
  // Its requests name `opencode/VERSION` in the user-agent (the binary; cg proxy attributed the client suite's provider calls to it).
  sentRequest: (header) => /^opencode\//i.test(header('user-agent') ?? ''),
  wrap: OPENCODE_WRAP,
  instructionsFile: 'AGENTS.md',
  ownFile: { text: pluginText, command: pluginCommand },
  // OpenCode loads {plugin,plugins}/*.{js,ts} from its global config directory and every .opencode
  // directory from the project up (OPENCODE_CONFIG_DIR is one more directory it reads, not instead).
  settingsFile(scope, env, cwd, home) {
    const dir =
      scope === 'project' ? `${cwd}/.opencode` : `${env.XDG_CONFIG_HOME || `${home}/.config`}/opencode`;
    return `${dir}/plugins/cg.js`;
  },
  entries: [{ event: EVENT, matcher: 'bash', args: ['opencode'], timeout: 10 }],
  legacyEvents: [],
  version: {
    bin: 'opencode',
    args: ['--version'],
    parse: (out) => /(\d+\.\d+\.\d+)/.exec(out)?.[1],
    minimum: '1.18.33',
    why: 'tool.execute.after replacing output.output was checked on OpenCode 1.18.33',
  },
  probe: {
    // A getter: its 3,000 lines are made when `cg doctor` sends the probe, not on every
    // pipe and hook call that loads the host table.
    get payload() {
      return {
        hook_event_name: EVENT,
        tool_name: 'bash',
        tool_input: { command: 'seq 1 3000' },
        tool_response: {
          output: `${Array.from({ length: 3000 }, (_, i) => String(i + 1)).join('\n')}\n`,
          metadata: { exit: 0, truncated: false },
        },
      };
    },
    check(answer) {
      const output = stringAt(answer, 'output');
      if (output === undefined) return 'the answer has no {"output": …} text for the plugin to set';
      return output.includes('<<cg:') ? undefined : 'the replaced output carries no marker';
    },
  },
  afterInstall: ['it applies to OpenCode sessions started from now on (the plugin compacts bash outputs)'],
  hookGaps: [
    "the plugin shortens bash outputs only (read, grep and glob answer in shapes of their own); a failing run is kept verbatim unless a filter proven to keep every failure line matches; `cg wrap opencode` reaches every tool of OpenCode's anthropic provider",
  ],
  // OpenCode 1.18.33 sets these in its own process.env at start-up; its shells inherit them.
  agentEnv: ['OPENCODE', 'OPENCODE_PID'],
  mcpAdd: (cg) => `opencode mcp add   # then: name cg, type local, command ${cg} mcp`,
};
