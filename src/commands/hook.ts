/**
 * `cg hook claude|codex`: the agent's PreToolUse hook. Reads the hook payload on stdin and, for a
 * shell call whose command (or a part of it) a cg filter handles, prints the payload's tool input
 * with the command wrapped in `cg run --` (see hook/rewrite.ts for what is and is not wrapped).
 * Otherwise it prints nothing, and the call goes ahead unchanged.
 *
 * It never fails the agent's call: CG_DISABLE=1, a payload it does not understand, a broken filter
 * file or any internal error all mean "print nothing, exit 0". It runs before every shell call, so
 * it reads nothing it does not need: filter files (and with them the regex engine, and YAML for user
 * or project filter files) are loaded only when the command has a part that is safe to wrap; the
 * tokenizer, the config and the store are never touched.
 */
import type { FilterSource } from '../component.js';
import { type Agent, readShellCall, rewriteAnswer } from '../hook/protocol.js';
import { decideRewrite } from '../hook/rewrite.js';
import { readStdin, writeOut } from '../io.js';

export interface HookDeps {
  env?: NodeJS.ProcessEnv;
  /** The filters for an agent working in cwd (tests pass a fake; the default reads the real ones). */
  filters?: (cwd: string, env: NodeJS.ProcessEnv) => FilterSource | Promise<FilterSource>;
  /** Told what was decided and why (the CLI passes stderr only when CG_HOOK_DEBUG=1). */
  debug?: (line: string) => void;
}

/** The answer to print for one payload, or undefined for "leave the call alone". Never throws. */
export async function hookAnswer(
  agent: Agent,
  payload: string,
  deps: HookDeps = {},
): Promise<string | undefined> {
  const env = deps.env ?? process.env;
  try {
    if (env.CG_DISABLE === '1') return undefined;
    const call = readShellCall(JSON.parse(payload));
    if (!call) return undefined;
    const cwd = call.cwd ?? process.cwd();
    let source: Promise<FilterSource> | undefined;
    const decision = await decideRewrite(call.command, {
      ...(call.session !== undefined ? { session: call.session } : {}),
      handles: async (command) => {
        source ??= Promise.resolve((deps.filters ?? realFilters)(cwd, env));
        return (await (await source).select(command, '')) !== undefined;
      },
    });
    deps.debug?.(
      decision.kind === 'rewrite'
        ? `rewrote (${decision.wrapped.join('; ')}): ${decision.command}`
        : `left alone: ${decision.reason}`,
    );
    return decision.kind === 'rewrite' ? rewriteAnswer(agent, call, decision.command) : undefined;
  } catch (err) {
    deps.debug?.(`internal problem, call left alone: ${err instanceof Error ? err.message : String(err)}`);
    return undefined;
  }
}

async function realFilters(cwd: string, env: NodeJS.ProcessEnv): Promise<FilterSource> {
  const { createFilterSource } = await import('../dsl/registry.js');
  return createFilterSource({ cwd, env });
}

/** The CLI entry: stdin → the answer on stdout. Always exits 0. */
export async function hookSubcommand(agent: Agent): Promise<number> {
  try {
    const payload = (await readStdin()).toString('utf8');
    const debug =
      process.env.CG_HOOK_DEBUG === '1' ? (l: string) => process.stderr.write(`cg hook: ${l}\n`) : undefined;
    const answer = await hookAnswer(agent, payload, debug ? { debug } : {});
    if (answer) await writeOut(answer);
  } catch {
    // Nothing to say: the agent runs its call unchanged.
  }
  return 0;
}
