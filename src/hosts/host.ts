/**
 * What cg knows about one agent host, as data (STYLE: "the language table is data"): where its
 * hook settings live, which hook entries cg installs there, which hook events it answers and how,
 * how `cg init`, `cg doctor`, `cg wrap`, `cg proxy` and `cg stats` deal with it, and what the host
 * itself shows of a long output. One folder per host (claude/, codex/, gemini/, opencode/) fills this in, its
 * host.ts the row of the table in index.ts; adding a host is one folder and one row. A row is
 * loaded on every start-up that needs a host's limits or name, so what is heavy (tool shapes,
 * policy engines, doctor probes) sits behind an import() in the row's functions. Nothing here does
 * any I/O.
 */

import type { FilterSource } from '../component.js';
import type { DoctorCheck } from '../proxy/doctor.js';
import type { Edit } from './hook/settings.js';
import type { HostLimit } from './limits.js';
import type { HostName } from './names.js';
import type { WrapHost } from './wrap.js';

export type { HostName };
export type Scope = 'global' | 'project';

/** One text the model would read, with what the filters need to know about it. */
export interface ModelText {
  text: string;
  /** The shell command that printed it (selects filters; `cg expand` output is never touched). */
  command?: string;
  /** The source language, when the text is one whole file (a Read). */
  lang?: string;
  /** The preset for this kind of output when the user's config names none. */
  preset?: string;
  /** The command failed (non-zero exit): the tool-error gates keep it verbatim, or filter it keeping every failure line. */
  isError?: boolean;
}

/** A tool output the host lets cg replace: the texts to compact and how to put them back. */
export interface Replaceable {
  texts: ModelText[];
  /** The host's replacement object, from the texts as compacted (same order, same count). */
  rebuild(compacted: readonly string[]): unknown;
  /**
   * The most characters the host shows the model inline: a longer replacement would itself be cut
   * to the host's preview, so the host's own handling of the original is left in place instead.
   */
  maxChars?: number;
}

/** How one tool's output (the payload's tool_response) is read and rebuilt. */
export interface ToolShape {
  /** Tool names this shape applies to: exact names, or a prefix ending in `*` (MCP tools). */
  tools: readonly string[];
  /** The replaceable texts, or undefined when this response is not one to touch. */
  read(
    response: unknown,
    input: Record<string, unknown>,
    files: FileReader,
    env: NodeJS.ProcessEnv,
  ): Replaceable | undefined;
  /** Wraps a rebuilt output in the host's hook answer; undefined when it cannot be handed back. */
  answer(updated: unknown, ctx: AnswerContext): unknown | Promise<unknown>;
}

/** What an answer may need besides the rebuilt output. */
export interface AnswerContext {
  /** The host's name for cg's MCP cg_expand tool, when the hook was installed with one. */
  mcpTool?: string;
  /** Stashes a text in the store and gives its key (undefined when the store cannot take it). */
  stash(text: string): Promise<string | undefined>;
}

/** Reads a file a payload points at (a persisted large output); undefined when it cannot. */
export type FileReader = (path: string) => string | undefined;

/** One hook entry cg installs in the host's settings. */
export interface HookEntry {
  event: string;
  /** The host's tool matcher for the group. */
  matcher: string;
  /** Arguments after `cg hook` (the host name first). */
  args: readonly string[];
  /** How long the host waits before going ahead without the hook, in the host's unit (Claude Code
   * and Codex: seconds; Gemini CLI: milliseconds). */
  timeout: number;
}

export interface HostVersion {
  /** The host's own command, run as `bin ...args` to print its version. */
  bin: string;
  args: readonly string[];
  /** The version in the command's output. */
  parse(out: string): string | undefined;
  /** The first version whose hook protocol cg's entries need. */
  minimum: string;
  /** What older versions lack, for doctor's message. */
  why: string;
}

/** A hook payload and what the installed command must answer with, for doctor's round trip. */
export interface DoctorProbe {
  payload: Record<string, unknown>;
  /** Why the answer would not work on this host, or undefined when it has the right shape. */
  check(answer: unknown): string | undefined;
}

/** A round trip for one more event: its payload, and whether the answer (or none) is right. */
export interface EventProbe extends DoctorProbe {
  event: string;
}

/**
 * What a hook handler gets besides the payload: where the agent works, cg's options for the
 * model's view, and the seams tests substitute (filters, the host's own rules, how cg is named).
 */
export interface HookContext {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** The host the answer goes to. */
  host: HostName;
  /** The host's session id, for the stats ledger. */
  session?: string;
  /** The host's name for cg's MCP cg_expand tool, and the marker hint naming it. */
  mcpTool?: string;
  hint?: string;
  /** The filters for an agent working in cwd (default: the real ones). */
  filters?: (cwd: string, env: NodeJS.ProcessEnv) => FilterSource | Promise<FilterSource>;
  /** The host's own rules' verdict on commands, for a host that has such rules (default: ask it). */
  policy?: CommandPolicy;
  /** How a rewritten command names cg (default: this node and this cg script). */
  invocation?: string;
  /** The host process this hook runs under, for a host whose rules sit partly on its command line
   *  (default: found in /proc by the host's handler). */
  hostProcess?: () => HostProcess | undefined;
  /** Told what was decided and why (CG_HOOK_DEBUG). */
  debug?: (line: string) => void;
}

/** A running host process: its command line and the directory it started in. */
export interface HostProcess {
  args: readonly string[];
  cwd: string;
}

/** Whether any of a host's own rules (or a doubt about them) applies to any of these argvs. */
export type CommandPolicy = (
  argvs: readonly (readonly string[])[],
  cwd: string,
  env: NodeJS.ProcessEnv,
) => Promise<PolicyVerdict>;

export type PolicyVerdict = { matched: false } | { matched: true; why: string };

/** Answers one hook payload: the line to print, or undefined for "leave the call alone". */
export type HookHandler = (payload: Record<string, unknown>, ctx: HookContext) => Promise<string | undefined>;

/** Where `cg init` and `cg doctor` look: the scope, the environment, the project and home. */
export interface Place {
  scope: Scope;
  env: NodeJS.ProcessEnv;
  cwd: string;
  home: string;
}

/** How `cg init HOST --proxy` points the host at `cg proxy`. */
export type ProxyInit =
  /** Lines the user adds to a file cg does not edit. */
  | { print(url: string): string }
  | {
      /** The host's settings text with the proxy set (or, uninstalling, taken out). */
      edit(text: string | undefined, url: string, uninstall: boolean): Promise<Edit>;
      /** What the edit sets, for the messages. */
      what: string;
    };

/** How `cg doctor`'s proxy section sees the host. */
export interface ProxyDoctor {
  /** The loopback proxy URL the host is configured with, if any (doctor checks that proxy). */
  configuredUrl(env: NodeJS.ProcessEnv): string | undefined;
  /** Whether the host points at the proxy at url: the first check is named after the host. */
  checks(env: NodeJS.ProcessEnv, url: string): DoctorCheck[];
}

/** How `cg stats` names the host and measures against it (the names are on disk: never renamed). */
export interface HostStats {
  /** The name runs are recorded under. */
  name: string;
  /** Values of CG_HOST that mean this host (lower-case), the recorded name among them. */
  aliases: readonly string[];
  /** Set by the host in every shell it runs a command in. */
  detectEnv: string;
  /** In a few words, what the host shows of a long output. */
  shows: string;
}

export interface Host {
  name: HostName;
  title: string;
  /** What the host shows the model of a long shell command output (its own limits). */
  limit: HostLimit;
  stats: HostStats;
  /** The hook events cg answers for this host, each with its handler (`cg hook NAME`). */
  hook: Readonly<Record<string, HookHandler>>;
  /** Whether a request to `cg proxy` came from this host, by its headers. */
  sentRequest(header: (name: string) => string | undefined): boolean;
  /** How `cg wrap` points the host at a proxy for one run. */
  wrap: WrapHost;
  /** The instructions file its agent reads (for `cg init agents-md >> FILE`). */
  instructionsFile: string;
  /** cg's MCP cg_expand tool as registered with the host there, for marker hints (`--mcp-tool`). */
  registeredMcpTool?(place: Place): string | undefined;
  /** What `cg init` changes in the host's settings besides the hook entries (an MCP server). */
  alsoInit?(text: string, uninstall: boolean, invocation: string): Promise<Edit>;
  /** What would keep an installed hook in `file` from working: trust, enablement (`cg doctor`). */
  doctorProblems?(file: string, place: Omit<Place, 'scope'>): Promise<string[]>;
  /** `cg init HOST --proxy`, for a host `cg proxy` serves. */
  proxyInit?: ProxyInit;
  proxyDoctor?: ProxyDoctor;
  /**
   * A host whose hook is a file of cg's own (OpenCode's plugin) rather than entries in a JSON
   * settings file: `settingsFile` names that file, which init writes whole and uninstall removes.
   */
  ownFile?: OwnFile;
  /** The hook settings file for a scope (a JSON document with a top-level "hooks" object). */
  settingsFile(scope: Scope, env: NodeJS.ProcessEnv, cwd: string, home: string): string;
  /** What cg installs. */
  entries: readonly HookEntry[];
  /** Events an older cg installed its hook under, migrated away by `cg init`. */
  legacyEvents: readonly string[];
  version: HostVersion;
  probe: DoctorProbe;
  /**
   * Round trips for the other events cg's command is installed under, each run when the command
   * is: a payload of that event, and a check that also gets `undefined` when the hook answered
   * nothing (it left the call alone).
   */
  eventProbes?: readonly EventProbe[];
  /** What to tell the user after installing (trust steps, where to check). */
  afterInstall: readonly string[];
  /**
   * What the host's hooks cannot reach, each with the door that does (`cg doctor` says it beside
   * an installed hook): one line each.
   */
  hookGaps: readonly string[];
  /**
   * Variables the host sets in the environment of the commands its agent runs (read in the pinned
   * package and seen in a real tool call): any one of them set means cg runs inside that host's
   * tool call, where a person's consent (`cg trust`) cannot be given.
   */
  agentEnv: readonly string[];
  /** The command line that registers cg's MCP server with the host; `cg` is how to run cg. */
  mcpAdd(cg: string): string;
}

/** A hook that is one whole file cg writes (a plugin), never a file of the user's. */
export interface OwnFile {
  /** The file's text, running cg as `invocation` (absolute, shell-quoted). */
  text(invocation: string): string;
  /** The `cg hook` command a file of cg's runs, or undefined when the file is not one cg wrote. */
  command(text: string): string | undefined;
}

/** Whether a tool name is one a shape covers. */
export function shapeCovers(shape: ToolShape, tool: string): boolean {
  return shape.tools.some((t) => (t.endsWith('*') ? tool.startsWith(t.slice(0, -1)) : t === tool));
}
