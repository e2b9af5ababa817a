/**
 * Codex's PreToolUse hook: Codex (0.171) lets no hook replace a tool's output in place, so the
 * lever is `updatedInput` — a shell command that Codex would run without asking is rewritten to go
 * through `cg run` (hosts/hook/rewrite.ts), which compacts its output for the model: commands a cg filter
 * knows, and read-only programs whose output runs long (cat, grep, git, … — hosts/hook/programs.ts). The rewrite must
 * leave every Codex decision as it was:
 *
 *   - no Codex rule may match the original's commands or cg's words in front of them
 *     (codex/policy.ts asks Codex's own engine); a forbidden or prompting command is never
 *     touched, and neither is one a rule allows past the sandbox;
 *   - commands Codex's heuristics may flag as dangerous (they would prompt or be rejected) are not
 *     wrapped, since behind `cg run` the heuristics could no longer see them;
 *   - cg is named by absolute path (Codex runs commands under a login shell that may reset PATH),
 *     with CG_READER=model so `cg run` compacts although Codex captures output in a file.
 *
 * In Codex's sandboxes `cg run` may find its store (or even its temp directory) unwritable; it then
 * passes the output through raw and keeps the exit code, so a wrapped command never fails because
 * of cg. `cg doctor` says when the store sits outside the sandbox's writable roots.
 */
import { handlesCommand } from '../hook/handles.js';
import { decideRewrite } from '../hook/rewrite.js';
import { readShellCall, selfInvocation } from '../hook/shell-call.js';
import type { HookContext } from '../host.js';
import { codexPolicy } from './policy.js';
import { rewriteAnswer } from './protocol.js';

/** Commands Codex's "might be dangerous" heuristics look for, among those a cg filter handles. */
const DANGEROUS = /^(?:\S*\/)?(?:rm|dd|mkfs\S*|shred|sudo|doas|su)$|^(?:\S*\/)?git$/;
const DANGEROUS_GIT = new Set(['reset', 'clean', 'push', 'checkout', 'restore', 'branch', 'rebase', 'rm']);

function mightBeDangerous(argv: readonly string[]): boolean {
  const [program, ...args] = argv;
  if (program === undefined || !DANGEROUS.test(program)) return false;
  if (!/(^|\/)git$/.test(program)) return true;
  const sub = args.find((a) => !a.startsWith('-'));
  return sub !== undefined && DANGEROUS_GIT.has(sub);
}

export async function codexRewrite(
  payload: Record<string, unknown>,
  o: HookContext,
): Promise<string | undefined> {
  const call = readShellCall(payload);
  if (!call) return undefined;
  const cwd = call.cwd ?? o.cwd;
  const decision = await decideRewrite(call.command, {
    ...(o.session !== undefined ? { session: o.session } : {}),
    invocation: o.invocation ?? selfInvocation(),
    // CG_HOST and CG_VIA: the ledger counts the saving against what Codex would have shown.
    cgEnv: { CG_READER: 'model', CG_HOST: 'codex', CG_VIA: 'hook' },
    handles: handlesCommand(cwd, o),
  });
  if (decision.kind === 'leave') {
    o.debug?.(`left alone: ${decision.reason}`);
    return undefined;
  }
  if (!decision.segments) {
    o.debug?.("left alone: a word's value depends on the shell, so Codex's rules cannot be checked");
    return undefined;
  }
  if (decision.segments.some(mightBeDangerous)) {
    o.debug?.('left alone: Codex may ask about this command');
    return undefined;
  }
  const verdict = await (o.policy ?? codexPolicy)([...decision.segments, ...decision.wrapper], cwd, o.env);
  if (verdict.matched) {
    o.debug?.(`left alone: ${verdict.why}`);
    return undefined;
  }
  o.debug?.(`rewrote (${decision.wrapped.join('; ')}): ${decision.command}`);
  return rewriteAnswer(call, decision.command);
}
