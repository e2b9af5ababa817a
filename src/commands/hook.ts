/**
 * `cg hook claude|codex|gemini|opencode [--mcp-tool NAME]`: the agent host's hook. Reads one hook payload on
 * stdin and answers on stdout, by the payload's event:
 *
 *   - Claude Code PostToolUse, Gemini CLI AfterTool, OpenCode's tool.execute.after (sent by cg's
 *     plugin, hosts/opencode/plugin.ts): the tool already ran as approved; the answer
 *     replaces its output with the compacted one (hosts/hook/output.ts, the host tables in src/hosts/).
 *   - Codex PreToolUse: Codex offers no output replacement, so a shell command that Codex's own
 *     policy runs without asking is rewritten to go through `cg run` (hosts/hook/rewrite.ts, hosts/codex/).
 *   - Claude Code PreToolUse: a Bash command Claude Code's own rules allow outright is rewritten to
 *     go through `cg run`, so a failing run is compacted too (hosts/claude/pretool-rewrite.ts).
 *   - anything else: no answer.
 *
 * It never fails the agent's call: CG_DISABLE=1, a payload it does not understand, a broken config
 * or filter file and any internal error all mean "print nothing, exit 0". It runs on every tool
 * call, so it imports nothing heavy unless an output is big enough to compact.
 * `--mcp-tool NAME` makes marker hints name the host's MCP tool for cg_expand instead of the shell
 * command. CG_HOOK_DEBUG=1 says on stderr what was decided and why.
 */
import type { FilterSource } from '../component.js';
import type { CommandPolicy, HookContext, HostName } from '../hosts/host.js';
import { readStdin, writeOut } from '../io.js';
import { filledStringAt, isObject } from '../json/payload.js';

export interface HookFlags {
  /** The host's name for cg's MCP expand tool (`mcp__cg__cg_expand`), for marker hints. */
  mcpTool?: string;
}

export interface HookDeps extends HookFlags {
  env?: NodeJS.ProcessEnv;
  /** The filters for an agent working in cwd (tests pass a fake; the default reads the real ones). */
  filters?: (cwd: string, env: NodeJS.ProcessEnv) => FilterSource | Promise<FilterSource>;
  /** How a Codex rewrite names cg (tests pass `cg`; the default is this node and script). */
  invocation?: string;
  /** The host's own rules' verdict on commands (tests pass a fake; the default asks the host). */
  policy?: CommandPolicy;
  /** Told what was decided and why. */
  debug?: (line: string) => void;
}

/** The answer to print for one payload, or undefined for "leave the call alone". Never throws. */
export async function hookAnswer(
  host: HostName,
  payload: string,
  deps: HookDeps = {},
): Promise<string | undefined> {
  const env = deps.env ?? process.env;
  try {
    if (env.CG_DISABLE === '1') return undefined;
    const parsed = parsePayload(payload, deps.debug);
    if (!parsed) return undefined;
    const event = parsed.hook_event_name;
    const session = filledStringAt(parsed, 'session_id');
    const ctx: HookContext = {
      ...deps,
      cwd: filledStringAt(parsed, 'cwd') ?? process.cwd(),
      env,
      host,
      ...(session !== undefined ? { session } : {}),
      ...(deps.mcpTool ? { mcpTool: deps.mcpTool, hint: ` [full output: ${deps.mcpTool} key={key}]` } : {}),
    };
    const { hostNamed } = await import('../hosts/index.js');
    const row = hostNamed(host);
    const handler =
      typeof event === 'string' && row && Object.hasOwn(row.hook, event) ? row.hook[event] : undefined;
    if (handler) return await handler(parsed, ctx);
    if (deps.debug) deps.debug(`left alone: ${await unansweredEvent(host, event)}`);
    return undefined;
  } catch (err) {
    deps.debug?.(`internal problem, call left alone: ${err instanceof Error ? err.message : String(err)}`);
    return undefined;
  }
}

/** The payload as a JSON object, or undefined (and why, to debug) when it is not one. */
function parsePayload(
  payload: string,
  debug: ((line: string) => void) | undefined,
): Record<string, unknown> | undefined {
  if (payload.trim() === '') {
    debug?.('left alone: no payload on stdin (the host sends one JSON object per call)');
    return undefined;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(payload);
  } catch (err) {
    debug?.(`left alone: the payload is not JSON (${(err as Error).message})`);
    return undefined;
  }
  if (isObject(parsed)) return parsed;
  debug?.(
    `left alone: the payload is ${Array.isArray(parsed) ? 'a JSON array' : `JSON ${typeof parsed}`}, not an object`,
  );
  return undefined;
}

/** Why an event gets no answer: what the payload lacked, or which events this host's hook answers. */
async function unansweredEvent(host: HostName, event: unknown): Promise<string> {
  const { hostNamed } = await import('../hosts/index.js');
  const answered = Object.keys(hostNamed(host)?.hook ?? {}).join(' or ');
  if (event === undefined) return `the payload has no hook_event_name (cg hook ${host} answers ${answered})`;
  if (typeof event !== 'string')
    return `the payload's hook_event_name is not a string (cg hook ${host} answers ${answered})`;
  return `cg hook ${host} answers ${answered}, not ${event}`;
}

/** `cg hook` arguments after the host: `--mcp-tool NAME` or `--mcp-tool=NAME`; undefined when bad. */
export function parseHookArgs(args: readonly string[]): HookFlags | undefined {
  const flags: HookFlags = {};
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const value = a === '--mcp-tool' ? args[++i] : a.startsWith('--mcp-tool=') ? a.slice(11) : undefined;
    if (value === undefined || !/^[A-Za-z0-9_.-]{1,128}$/.test(value)) return undefined;
    flags.mcpTool = value;
  }
  return flags;
}

/** The CLI entry: stdin → the answer on stdout. Always exits 0. */
export async function hookSubcommand(host: HostName, flags: HookFlags = {}): Promise<number> {
  try {
    const payload = (await readStdin()).toString('utf8');
    const debug =
      process.env.CG_HOOK_DEBUG === '1' ? (l: string) => process.stderr.write(`cg hook: ${l}\n`) : undefined;
    const answer = await hookAnswer(host, payload, { ...flags, ...(debug ? { debug } : {}) });
    if (answer) await writeOut(answer);
  } catch {
    // Nothing to say: the agent goes on with its call unchanged.
  }
  return 0;
}
