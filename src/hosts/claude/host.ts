/**
 * Claude Code, as cg plugs into it: a PostToolUse hook whose answer
 * `{"hookSpecificOutput":{"hookEventName":"PostToolUse","updatedToolOutput":…}}` replaces what the
 * model reads, after the tool ran exactly as approved — so permission rules, auto-approval and
 * "always allow" suggestions see the command the model wrote, never a cg wrapper (the tools and
 * their shapes: tools.ts). A Bash command that exits non-zero fires PostToolUseFailure, which
 * accepts no replacement: a PreToolUse rewrite to `cg run` reaches those where Claude Code's own
 * rules allow the command outright (pretool-rewrite.ts), `cg wrap claude` or `cg proxy`
 * (proxy-settings.ts, proxy-doctor.ts) reach them all. What Claude Code itself shows of a long output: limits.ts.
 */
import { objectAt, stringAt } from '../../json/payload.js';
import { replaceOutput } from '../hook/replace.js';
import type { Host } from '../host.js';
import { CLAUDE_LIMIT } from './limits.js';
import { claudeMcpTool } from './mcp-tool.js';
import { CLAUDE_PROXY_DOCTOR } from './proxy-doctor.js';
import { CLAUDE_WRAP } from './wrap.js';

export const CLAUDE: Host = {
  name: 'claude',
  title: 'Claude Code',
  limit: CLAUDE_LIMIT,
  stats: {
    name: 'claude-code',
    aliases: ['claude-code', 'claude', 'claudecode'],
    detectEnv: 'CLAUDECODE',
    shows: '≤30,000 chars whole, else a 2 KB preview',
  },
  hook: {
    PostToolUse: replaceOutput(async () => (await import('./tools.js')).CLAUDE_TOOLS),
    PreToolUse: async (payload, ctx) =>
      (await import('./pretool-rewrite.js')).claudePreToolRewrite(payload, ctx),
  },
  // Its user-agent is `claude-cli/VERSION (…)`.
  sentRequest: (header) => /^claude-cli\//i.test(header('user-agent') ?? ''),
  wrap: CLAUDE_WRAP,
  instructionsFile: 'CLAUDE.md',
  registeredMcpTool: claudeMcpTool,
  proxyInit: {
    edit: async (text, url, uninstall) =>
      (await import('./proxy-settings.js')).claudeProxyEdit(text, url, uninstall),
    what: 'the cg proxy setting (env.ANTHROPIC_BASE_URL)',
  },
  proxyDoctor: CLAUDE_PROXY_DOCTOR,
  settingsFile(scope, env, cwd, home) {
    const dir = scope === 'project' ? `${cwd}/.claude` : env.CLAUDE_CONFIG_DIR || `${home}/.claude`;
    return `${dir}/settings.json`;
  },
  entries: [
    {
      event: 'PostToolUse',
      matcher: 'Bash|Read|Grep|Glob|WebFetch|mcp__.*',
      args: ['claude'],
      timeout: 10,
    },
    // A failing run reaches the model only through this door (see pretool-rewrite.ts).
    { event: 'PreToolUse', matcher: 'Bash', args: ['claude'], timeout: 10 },
  ],
  legacyEvents: [],
  version: {
    bin: 'claude',
    args: ['--version'],
    parse: (out) => /(\d+\.\d+\.\d+)/.exec(out)?.[1],
    minimum: '2.1.233',
    why: 'updatedToolOutput for built-in tools (Bash, Read, …) works from Claude Code 2.1.233',
  },
  probe: {
    // A getter: its 3,000 lines are made when `cg doctor` sends the probe, not on every
    // pipe and hook call that loads the host table.
    get payload() {
      return {
        hook_event_name: 'PostToolUse',
        tool_name: 'Bash',
        tool_input: { command: 'seq 1 3000' },
        tool_response: {
          stdout: Array.from({ length: 3000 }, (_, i) => String(i + 1)).join('\n'),
          stderr: '',
          interrupted: false,
          isImage: false,
        },
      };
    },
    check(answer) {
      const out = objectAt(answer, 'hookSpecificOutput');
      if (stringAt(out, 'hookEventName') !== 'PostToolUse')
        return 'the answer names no PostToolUse hookEventName';
      const stdout = stringAt(out, 'updatedToolOutput', 'stdout');
      if (stdout === undefined) {
        return 'the answer has no updatedToolOutput {stdout, …} (Claude Code ignores a plain string)';
      }
      return stdout.includes('<<cg:') ? undefined : 'the replaced output carries no marker';
    },
  },
  // The PreToolUse door rewrites only under Claude Code's own process, whose rules it reads: run by
  // doctor it leaves the call alone, and the check is that it does so cleanly (or, inside Claude
  // Code, that a rewrite it makes has the shape Claude Code takes).
  eventProbes: [
    {
      event: 'PreToolUse',
      payload: {
        hook_event_name: 'PreToolUse',
        tool_name: 'Bash',
        tool_input: { command: 'seq 1 3000' },
        permission_mode: 'default',
      },
      check(answer) {
        if (answer === undefined) return undefined;
        const out = objectAt(answer, 'hookSpecificOutput');
        if (stringAt(out, 'hookEventName') !== 'PreToolUse')
          return 'the answer names no PreToolUse hookEventName';
        if (stringAt(out, 'permissionDecision') !== 'allow')
          return 'a rewrite without permissionDecision "allow" would make Claude Code ask';
        return stringAt(out, 'updatedInput', 'command') === undefined
          ? 'the answer has no updatedInput.command'
          : undefined;
      },
    },
  ],
  afterInstall: [
    'it applies to Claude Code sessions started from now on; check it with /hooks',
    'failing commands (non-zero exit) are compacted only where your permission rules allow them outright (the PreToolUse hook runs them through `cg run`); others reach the model unchanged; `cg wrap claude` reaches them all',
  ],
  hookGaps: [
    "a failing Bash run (non-zero exit) is compacted in hooks mode only when Claude Code's rules allow the command outright (the PreToolUse hook runs it through `cg run`); one they ask about or leave unruled reaches the model whole (PostToolUseFailure accepts no replacement); `cg wrap claude` (or `cg proxy`) shortens them all",
  ],
  // Claude Code 2.1.332 sets CLAUDECODE=1 in its Bash tool's shell (documented, and seen in a real
  // Bash call with CLAUDE_CODE_ENTRYPOINT, CLAUDE_CODE_SESSION_ID and AI_AGENT beside it).
  agentEnv: ['CLAUDECODE', 'CLAUDE_CODE_ENTRYPOINT', 'CLAUDE_CODE_SESSION_ID'],
  mcpAdd: (cg) => `claude mcp add --scope user cg -- ${cg} mcp`,
};
