/**
 * What each agent host would have shown the model of a shell command's output without cg — the
 * baseline `cg stats` measures savings against. Hosts do not pass a long output through whole:
 * Claude Code keeps a long one in a file and shows a short preview, Codex and Gemini CLI cut out
 * its middle. Counting a saving against the raw output would credit cg with tokens the model never
 * saw. The limits themselves, each with where its figure comes from, are in each host's row in
 * src/hosts/ (hosts/limits.ts renders what a host shows: hostView); HOSTS here is that table as
 * cg stats reads it: the limits with the name runs are recorded under.
 *
 * Which host ran cg: RecordMeta.host (the hook and the proxy know it), else CG_HOST, else the
 * variable the host itself sets in the shells it starts (detectEnv). `CG_HOST=none` says "no host":
 * the raw output is the baseline. The cap applies to tool outputs cg saw before the host did (a
 * pipe, `cg run`, a hook); a request body through `cg proxy` already holds what the host showed.
 */

import { HOSTS as HOST_ROWS, hostByAlias } from '../hosts/index.js';
import type { HostLimit } from '../hosts/limits.js';

export { hostCaps, hostView, hostViewBytesBound } from '../hosts/limits.js';

/** A host's limits and how `cg stats` names it, from its row in src/hosts/ (the one table). */
export interface HostModel extends HostLimit {
  /** The name runs are recorded under (the ledger's spelling). */
  name: string;
  /** Values of CG_HOST that mean this host (lower-case). */
  aliases: readonly string[];
  /** Set by the host in every shell it runs a command in. */
  detectEnv: string;
  /** For `cg stats`: the host's name and, in a few words, what it shows. */
  label: string;
  shows: string;
}

function modelOf(h: (typeof HOST_ROWS)[number]): HostModel {
  const { name, aliases, detectEnv, shows } = h.stats;
  return { ...h.limit, name, aliases, detectEnv, label: h.title, shows };
}

export const HOSTS: readonly HostModel[] = HOST_ROWS.map(modelOf);

const BY_NAME = new Map(HOSTS.map((h) => [h.name, h]));

/** Values of CG_HOST (and RecordMeta.host) that mean "no host: count against the raw output". */
const NO_HOST = new Set(['none', 'off', 'raw', '0']);

/** A recorded host name is kept as given (capped), so a host cg does not model yet is still named. */
const HOST_NAME_RE = /^[a-z0-9][a-z0-9._-]{0,31}$/;

/**
 * The host to record for a run: the explicit one, else CG_HOST, else the one whose own variable is
 * set. Undefined when none is known or "none" was said.
 */
export function resolveHost(explicit: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  const given = (explicit ?? env.CG_HOST)?.trim().toLowerCase();
  if (given !== undefined && given !== '') {
    if (NO_HOST.has(given)) return undefined;
    const known = hostByAlias(given);
    if (known) return known.stats.name;
    return HOST_NAME_RE.test(given) ? given : undefined;
  }
  for (const h of HOSTS) if (env[h.detectEnv]) return h.name;
  return undefined;
}

/** The model of a host cg knows how the host caps output for, else undefined. */
export function hostModel(name: string | undefined): HostModel | undefined {
  return name === undefined ? undefined : BY_NAME.get(name);
}

/** Said after the baseline when the net figures subtract cg's own model calls. */
const NET_OF_MODEL = " · net of cg's own model calls";

/**
 * One line (≤ 80 columns) naming what the host-capped figures are measured against, from the hosts
 * the report's runs were recorded with (undefined: runs with no host, counted against the raw), and
 * — when `netOfModel` — that cg's own model calls are netted out (the hosts named more briefly when
 * the whole would not fit).
 */
export function baselineLine(hosts: readonly (string | undefined)[], netOfModel = false): string {
  const known = [...new Set(hosts)].map(hostModel).filter((h): h is HostModel => h !== undefined);
  const raw = hosts.some((h) => hostModel(h) === undefined);
  const names = known.map((h) => h.label).join(', ');
  const what = `vs host: what ${names} ${known.length === 1 ? 'shows' : 'show'}`;
  let full: string;
  if (known.length === 0) full = 'vs raw output: no agent host recorded (CG_HOST, see cg stats --help)';
  else if (known.length === 1 && !raw) full = `${what}, ${known[0]!.shows}`;
  else full = `${what}${raw ? '; raw where no host is recorded' : ''}`;
  const else_ = raw ? ', else raw' : '';
  // Every host at once (four names) leaves no room for the longer wording.
  if (!netOfModel) return [...full].length <= 80 ? full : `${what}${else_}`;
  const briefer =
    known.length === 0
      ? ['vs raw output (no agent host recorded)']
      : [
          `${what}${else_}`,
          `vs host: ${names}${else_}`,
          `vs host: what each of the ${known.length} hosts shows${else_}`,
        ];
  const fits = [full, ...briefer].find((l) => [...l].length + NET_OF_MODEL.length <= 80);
  return (fits ?? briefer[briefer.length - 1]!) + NET_OF_MODEL;
}
