/**
 * The PreToolUse hook protocols of the agents cg plugs into: what their JSON on stdin looks like
 * and the JSON that rewrites a shell call.
 *
 * Claude Code sends `{session_id, cwd, hook_event_name: "PreToolUse", tool_name: "Bash",
 * tool_input: {command, description?, timeout?, run_in_background?}}`. The answer is
 * `{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{…}}}` with the whole
 * tool_input, only `command` changed, and no `permissionDecision`: a rewrite must never approve a
 * call the user's permission rules would have asked about.
 *
 * Codex sends the same fields (plus turn_id, model, tool_use_id) with `tool_input: {command}` for
 * its shell tool. Codex applies `updatedInput` only together with `permissionDecision: "allow"`
 * (without it the hook counts as failed and the call runs unchanged); there, "allow" means "not
 * blocked" — the call still goes through Codex's own approval and sandbox — so it widens nothing.
 */

export const AGENTS = ['claude', 'codex'] as const;
export type Agent = (typeof AGENTS)[number];

/** The shell tool's name in the payload: Codex too reports its shell tools by the canonical "Bash". */
const SHELL_TOOL = 'Bash';

export interface ShellCall {
  command: string;
  /** The tool input as received: the rewrite keeps every other field. */
  toolInput: Record<string, unknown>;
  cwd?: string;
  session?: string;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The shell call in a PreToolUse payload, or undefined when it is anything else. */
export function readShellCall(payload: unknown): ShellCall | undefined {
  if (!isObject(payload)) return undefined;
  const event = payload.hook_event_name;
  if (event !== undefined && event !== 'PreToolUse') return undefined;
  if (payload.tool_name !== SHELL_TOOL) return undefined;
  const input = payload.tool_input;
  if (!isObject(input) || typeof input.command !== 'string') return undefined;
  // A Claude call the agent sent to the background has no output to compact now.
  if (input.run_in_background === true) return undefined;
  return {
    command: input.command,
    toolInput: input,
    ...(typeof payload.cwd === 'string' && payload.cwd !== '' ? { cwd: payload.cwd } : {}),
    ...(typeof payload.session_id === 'string' && payload.session_id !== ''
      ? { session: payload.session_id }
      : {}),
  };
}

/** The hook's answer: the same tool input with the command replaced, as one JSON line. */
export function rewriteAnswer(agent: Agent, call: ShellCall, command: string): string {
  const updatedInput = { ...call.toolInput, command };
  const output =
    agent === 'codex'
      ? { hookEventName: 'PreToolUse', permissionDecision: 'allow', updatedInput }
      : { hookEventName: 'PreToolUse', updatedInput };
  return `${JSON.stringify({ hookSpecificOutput: output })}\n`;
}
