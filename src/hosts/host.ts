/**
 * What cg knows about one agent host, as data (STYLE: "the language table is data"): where its
 * hook settings live, which hook entries cg installs there, how the host's hook payloads carry a
 * tool's output and how a shorter one is handed back, and how `cg doctor` checks the install.
 * One file per host (claude.ts, codex.ts, gemini.ts) fills this in; nothing here does any I/O.
 */

import type { HostName } from './names.js';

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

export interface Host {
  name: HostName;
  title: string;
  /** The hook settings file for a scope (a JSON document with a top-level "hooks" object). */
  settingsFile(scope: Scope, env: NodeJS.ProcessEnv, cwd: string, home: string): string;
  /** What cg installs. */
  entries: readonly HookEntry[];
  /** Events an older cg installed its hook under, migrated away by `cg init`. */
  legacyEvents: readonly string[];
  version: HostVersion;
  probe: DoctorProbe;
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

/** Whether a tool name is one a shape covers. */
export function shapeCovers(shape: ToolShape, tool: string): boolean {
  return shape.tools.some((t) => (t.endsWith('*') ? tool.startsWith(t.slice(0, -1)) : t === tool));
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
