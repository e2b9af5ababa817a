/**
 * How `cg wrap` points a host at a `cg proxy` for one run, the host's own way, never by editing
 * a settings file: `point()` gives the environment and arguments the host is started with, and
 * `ownBase()` the upstream the host would have used without cg (so the proxy forwards there, and a
 * gateway the user set keeps being used). Each host's row is its folder's wrap.ts (the Host table
 * holds it); this module is the shape and what the rows share. No I/O of its own: files are read
 * through the caller.
 */
import { objectAt } from '../json/payload.js';
import type { AnyHostName } from './names.js';

export type Wrapped = { env: Record<string, string>; args: string[] } | { unsupported: string };

export interface WrapHost {
  name: AnyHostName;
  /** The executable started (found on PATH). */
  bin: string;
  /** The proxy provider the host's requests go to. */
  provider: 'anthropic' | 'openai' | 'gemini';
  /**
   * The base URL the host would use without cg, as an upstream origin+path (no /v1), if set;
   * `read` gives a settings file's text (undefined when there is none).
   */
  ownBase(
    env: NodeJS.ProcessEnv,
    cwd: string,
    read: (path: string) => string | undefined,
  ): string | undefined;
  /** Environment additions and the argument list for a run through the proxy at `url`. */
  point(url: string, env: NodeJS.ProcessEnv, args: readonly string[]): Wrapped;
  /** Shell lines for people who start the host themselves (`cg wrap --print-env`). */
  printEnv(url: string): string[] | { unsupported: string };
  /** Why this user's setup cannot go through the proxy (its requests go to an API cg does not serve). */
  unwrappable?(
    env: NodeJS.ProcessEnv,
    cwd: string,
    read: (path: string) => string | undefined,
  ): string | undefined;
}

/** The `env` map of a settings.json text ({} when there is none or it does not parse). */
export function settingsEnv(text: string | undefined): Record<string, unknown> {
  if (text === undefined) return {};
  try {
    return objectAt(JSON.parse(text), 'env') ?? {};
  } catch {
    return {};
  }
}

export const nonEmpty = (v: string | undefined) =>
  v !== undefined && v.trim() !== '' ? v.trim() : undefined;

/** A word as the shell reads it back, quoted only when it must be. */
export const shellWord = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replaceAll("'", `'\\''`)}'`);

/** A host cg reaches by `cg wrap` only: its wrap row, and for `cg doctor` which door reaches it. */
export interface WrapOnlyHost {
  name: string;
  title: string;
  wrap: WrapHost;
  /** Which door reaches the host and what is not built, one line. */
  doors: string;
}
