/**
 * Claude Code's PreToolUse hook: the one door in hooks mode to a *failing* Bash run. Claude Code
 * sends a non-zero exit to PostToolUseFailure, which accepts no replacement, so the only lever is
 * to run the command through `cg run` (it prints the compacted output and keeps the exit code,
 * hence `is_error` and `Exit code N` stay as they were).
 *
 * The rewrite must leave every permission decision as it was. Checked in the 2.1.332 binary: an
 * `updatedInput` without a decision is asked about; with `permissionDecision: "allow"` the deny and
 * ask rules are evaluated again over the *rewritten* command and otherwise the call runs. So cg
 * rewrites only when
 *
 *   - Claude Code's own rules (every settings layer, its command line, the session's mode —
 *     permission-layers.ts, permission-rules.ts) certainly allow the original, and
 *   - no deny or ask rule might match the rewritten command either,
 *
 * and then answers `allow` with the rewrite: the outcome Claude Code would have reached. A command
 * the rules would ask about is left alone — Claude Code then asks about the command the model
 * wrote, so the person sees (and "always allow" remembers) that command, never a cg wrapper; a
 * denied, unruled or unprovable one is left alone too. Which commands are worth the wrap is the
 * Codex rewrite's choice (../hook/rewrite.ts: a cg filter knows them, or they are read-only programs
 * whose output runs long); the successful ones then already carry cg's marker when PostToolUse
 * sees them, and it leaves them as they are.
 */
import { handlesCommand } from '../hook/handles.js';
import { decideRewrite } from '../hook/rewrite.js';
import { readShellCall, selfInvocation } from '../hook/shell-call.js';
import type { HookContext } from '../host.js';
import { claudeProcess, readLayers } from './permission-layers.js';
import { evaluateBash, mightMatch } from './permission-rules.js';

export async function claudePreToolRewrite(
  payload: Record<string, unknown>,
  o: HookContext,
): Promise<string | undefined> {
  const leave = (why: string) => {
    o.debug?.(`left alone: ${why}`);
    return undefined;
  };
  const call = readShellCall(payload);
  if (!call) return leave('not a foreground Bash call');
  const mode = payload.permission_mode;
  if (typeof mode !== 'string') return leave('the payload names no permission_mode');
  const claude = (o.hostProcess ?? claudeProcess)();
  if (!claude) return leave('the Claude Code process (its command line and settings) cannot be read');
  const layers = readLayers(claude, o.env);
  if (!layers.ok) return leave(layers.why);
  const original = evaluateBash(call.command, layers.rules, mode);
  if (original.verdict !== 'allow')
    return leave(`Claude Code's verdict is ${original.verdict} (${original.why})`);

  const decision = await decideRewrite(call.command, {
    ...(call.session !== undefined ? { session: call.session } : {}),
    invocation: o.invocation ?? selfInvocation(),
    cgEnv: { CG_READER: 'model', CG_HOST: 'claude', CG_VIA: 'hook' },
    handles: handlesCommand(call.cwd ?? o.cwd, o),
  });
  if (decision.kind === 'leave') return leave(decision.reason);
  const objection = [...layers.rules.deny, ...layers.rules.ask].find((r) => mightMatch(r, decision.command));
  if (objection) return leave(`the rule ${objection} might match the rewritten command`);
  o.debug?.(`rewrote (${original.why}; ${decision.wrapped.join('; ')}): ${decision.command}`);
  return `${JSON.stringify({
    hookSpecificOutput: {
      hookEventName: 'PreToolUse',
      permissionDecision: 'allow',
      permissionDecisionReason: `cg: ${original.why} (output compacted by cg run)`,
      updatedInput: { ...call.toolInput, command: decision.command },
    },
  })}\n`;
}
