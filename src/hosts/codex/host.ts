/**
 * Codex CLI, as cg plugs into it: a PreToolUse hook on its shell tool (Codex reports it as
 * "Bash") whose `updatedInput` rewrites a command to go through `cg run` (codex/rewrite.ts).
 * Codex 0.171 replaces no output in place: its PostToolUse accepts `decision: "block"` with a
 * reason that stands in for the whole result, exit-code header included, and is shown as blocked —
 * not a replacement cg can use without hiding the exit code.
 *
 * Codex applies `updatedInput` only with `permissionDecision: "allow"`; there "allow" means "not
 * blocked by this hook" — the call still goes through Codex's rules, approval and sandbox. Codex
 * runs a hook only once the user has trusted it (`/hooks` in the TUI); an untrusted hook is
 * skipped silently by `codex exec`.
 */

import { objectAt, stringAt } from '../../json/payload.js';
import { codexSnippet } from '../../proxy/setup.js';
import type { Host } from '../host.js';
import { CODEX_LIMIT } from './limits.js';
import { CODEX_PROXY_DOCTOR } from './proxy-doctor.js';
import { CODEX_WRAP } from './wrap.js';

export const CODEX: Host = {
  name: 'codex',
  title: 'Codex',
  limit: CODEX_LIMIT,
  stats: {
    name: 'codex',
    aliases: ['codex', 'codex-cli'],
    detectEnv: 'CODEX_THREAD_ID',
    shows: '≤40,000 bytes whole, else 20 KB of each end',
  },
  hook: {
    PreToolUse: async (payload, ctx) => (await import('./rewrite.js')).codexRewrite(payload, ctx),
  },
  // It sends `originator: codex_cli_rs` (or codex_exec, codex_vscode …) and a user-agent starting with it.
  sentRequest: (header) =>
    /^codex/i.test(header('originator') ?? '') || /^codex/i.test(header('user-agent') ?? ''),
  wrap: CODEX_WRAP,
  instructionsFile: 'AGENTS.md',
  doctorProblems: async (file, place) => (await import('./doctor.js')).codexProblems(file, place),
  // Codex's provider lives in config.toml, which cg does not edit: it prints the lines instead.
  proxyInit: {
    print: (url) => `# add to ~/.codex/config.toml (with cg proxy running):\n${codexSnippet(url)}\n`,
  },
  proxyDoctor: CODEX_PROXY_DOCTOR,
  settingsFile(scope, env, cwd, home) {
    const dir = scope === 'project' ? `${cwd}/.codex` : env.CODEX_HOME || `${home}/.codex`;
    return `${dir}/hooks.json`;
  },
  entries: [{ event: 'PreToolUse', matcher: 'Bash', args: ['codex'], timeout: 10 }],
  legacyEvents: [],
  version: {
    bin: 'codex',
    args: ['--version'],
    parse: (out) => /(\d+\.\d+\.\d+)/.exec(out)?.[1],
    minimum: '0.124.0',
    why: 'hooks.json and PreToolUse updatedInput need Codex 0.124 or later',
  },
  probe: {
    payload: {
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'python3 -m pytest -q' },
    },
    check(answer) {
      const out = objectAt(answer, 'hookSpecificOutput');
      if (stringAt(out, 'hookEventName') !== 'PreToolUse')
        return 'the answer names no PreToolUse hookEventName';
      if (stringAt(out, 'permissionDecision') !== 'allow')
        return 'Codex applies updatedInput only with permissionDecision "allow"';
      const command = stringAt(out, 'updatedInput', 'command');
      if (command === undefined || !/ run( --\S+)* -- /.test(command)) {
        return 'the answer has no updatedInput.command going through cg run';
      }
      return undefined;
    },
  },
  afterInstall: [
    'Codex runs a new hook only once you trust it: open /hooks in Codex and trust "cg hook codex" (codex exec skips untrusted hooks silently)',
    'commands a Codex rule names (allow, prompt, forbidden) are never rewritten; cg doctor says whether the sandbox lets cg write its store',
  ],
  hookGaps: [
    'a command a Codex rule names (allow, prompt, forbidden) is never rewritten, so its output reaches the model whole in hooks mode; `cg wrap codex` (or `cg proxy`) shortens every output, failing runs too',
  ],
  // Codex 0.171 sets these in every exec_command it runs (seen in a real call, sandboxed or not, and
  // with tty: true, where stdin and stdout are a terminal); CODEX_SANDBOX and
  // CODEX_SANDBOX_NETWORK_DISABLED are set when its sandbox is on (macOS seatbelt, network off).
  agentEnv: [
    'CODEX_THREAD_ID',
    'CODEX_TOOL_CALL_ID',
    'CODEX_CI',
    'CODEX_SANDBOX',
    'CODEX_SANDBOX_NETWORK_DISABLED',
  ],
  mcpAdd: (cg) => `codex mcp add cg -- ${cg} mcp`,
};
