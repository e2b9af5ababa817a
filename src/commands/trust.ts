/**
 * `cg trust [--show | --untrust]`: consent to the project's own cg files — its `.cg.yaml` and
 * `.cg/filters/*.yaml`, the project being found from the working directory up to the repository
 * root — or look at what they are and whether they are trusted, or withdraw consent. Trusting
 * checks every file first (config schema; filter schema, regexes, inline tests; only what loads
 * cleanly can be trusted) and records one hash of exactly the bytes it checked. It also says what
 * the config is then allowed to do that matters (the model it calls with which key variable, where
 * and how long originals are kept, the text after every marker), so consent is to something seen.
 * `cg filters trust|untrust` are the same command. Consent is a person's (trust/person.ts): without
 * a terminal, or inside an agent host's tool call, trusting is refused with exit 2 — a usage error,
 * like any command run where it cannot work: nothing failed, and running it the same way again
 * never will. Looking (`--show`) and withdrawing (`--untrust`) work anywhere. `--show --json`
 * prints the same report as one object (TrustShow).
 */
import { relative } from 'node:path';
import { type CgConfig, parseConfigText, STORE_CONFIG_DEFAULTS } from '../config.js';
import { parseFilterText } from '../dsl/parse.js';
import { loadRe2 } from '../dsl/regex.js';
import { compileLevel } from '../dsl/registry.js';
import { UsageError } from '../errors.js';
import { MODEL_CONFIG_DEFAULTS } from '../llm/endpoint.js';
import { DEFAULT_HINT } from '../store/marker.js';
import { parseRedisUrl } from '../store/redis-url.js';
import { type Presence, processPresence, whyNoPerson } from '../trust/person.js';
import type { Project } from '../trust/project.js';
import {
  type ProjectContents,
  projectTrust,
  readProjectContents,
  trustProject,
  untrustProject,
} from '../trust/state.js';

export interface TrustFlags {
  show?: boolean;
  untrust?: boolean;
  /** With --show: the report as JSON (TrustShow). */
  json?: boolean;
}

export interface TrustIO {
  cwd: string;
  env: NodeJS.ProcessEnv;
  out: (s: string) => void;
  /** Who runs the command (trust/person.ts); this process, with `env`, when not given. */
  presence?: Presence;
}

const NOTHING_HERE =
  'no .cg.yaml or .cg/filters/*.yaml in this directory or above it (up to the repository root)';

export async function trustCommand(flags: TrustFlags, io: TrustIO): Promise<number> {
  if (flags.show && flags.untrust) throw new UsageError('trust: give --show or --untrust, not both');
  if (flags.untrust) {
    const { root, removed } = untrustProject(io.cwd, io.env);
    io.out(removed ? `${root} is no longer trusted\n` : `${root} was not trusted\n`);
    return 0;
  }
  if (flags.json && !flags.show) throw new UsageError('trust: --json goes with --show');
  if (flags.show) return show(io, !!flags.json);
  // Before anything is read: an agent's tool call gets nothing out of trying.
  const why = whyNoPerson(io.presence ?? (await processPresence(io.env)));
  if (why) throw new UsageError(`trust: ${why}`);
  const trusted = await trustProject(io.cwd, io.env, checkContents);
  if (!trusted) throw new UsageError(`trust: ${NOTHING_HERE}`);
  const { project, contents } = trusted;
  const { config, filters } = trusted.checked;
  io.out(
    `trusted ${project.root}: ${whatIs(contents, filters)}; editing any of them needs \`cg trust\` again\n`,
  );
  if (config) writeGrants(config, 'its config now sets', io);
  return 0;
}

/** Validates every file as a load would; returns the config and the number of filters. */
async function checkContents(contents: ProjectContents): Promise<{ config?: CgConfig; filters: number }> {
  const c = contents.config;
  const config = c ? await parseConfigText(c.text, c.path, c.shown) : undefined;
  await loadRe2();
  const defs = [];
  for (const f of contents.filters) defs.push(...(await parseFilterText(f.text, f.shown)));
  const filters = compileLevel(defs, 'project', true).length;
  return { ...(config ? { config } : {}), filters };
}

/** What `cg trust --show --json` prints (keys are only ever added, never renamed). */
export interface TrustShow {
  /** The project directory, or null when there is none here. */
  project: string | null;
  /** Its cg files, relative to the working directory. */
  files: string[];
  status: 'none' | 'trusted' | 'untrusted' | 'changed' | 'unusable';
  trustedAt: string | null;
  /** Why the files cannot be used whatever the trust record says (status unusable), else null. */
  reason: string | null;
  /** Why the files cannot be trusted as they are (a file that fails its checks), else null. */
  problem: string | null;
  /** What the config sets (trusted) or would set (otherwise) that matters: grantsOf. */
  grants: string[];
}

async function showReport(io: TrustIO): Promise<TrustShow> {
  const t = projectTrust(io.cwd, io.env);
  if (t.status === 'none') {
    return {
      project: null,
      files: [],
      status: 'none',
      trustedAt: null,
      reason: null,
      problem: null,
      grants: [],
    };
  }
  const report: TrustShow = {
    project: t.project.root,
    files: filesOf(t.project, io.cwd),
    status: t.status,
    trustedAt: t.status === 'trusted' ? t.trustedAt : null,
    reason: t.status === 'unusable' ? t.reason : null,
    problem: null,
    grants: [],
  };
  // What trusting would allow, read (bounded, links refused) for review; a file that fails says why.
  try {
    const { config } = await checkContents(readProjectContents(t.project, io.cwd));
    if (config) report.grants = grantsOf(config);
  } catch (err) {
    report.problem = (err as Error).message;
  }
  return report;
}

async function show(io: TrustIO, json: boolean): Promise<number> {
  const r = await showReport(io);
  if (json) {
    io.out(`${JSON.stringify(r, null, 2)}\n`);
    return 0;
  }
  if (r.status === 'none') {
    io.out(`${NOTHING_HERE}\n`);
    return 0;
  }
  io.out(`project ${r.project}\n`);
  for (const f of r.files) io.out(`  ${f}\n`);
  const status =
    r.status === 'trusted'
      ? `trusted (since ${r.trustedAt})`
      : r.status === 'changed'
        ? 'not trusted: the files changed since they were trusted'
        : r.status === 'unusable'
          ? `not usable: ${r.reason}`
          : 'not trusted';
  io.out(`status: ${status}\n`);
  if (r.problem !== null) io.out(`cannot be trusted as it is: ${r.problem}\n`);
  else if (r.grants.length > 0) {
    io.out(`${r.status === 'trusted' ? 'its config sets' : 'trusting it would let its config set'}:\n`);
    for (const g of r.grants) io.out(`  ${g}\n`);
  }
  return 0;
}

function writeGrants(config: CgConfig, heading: string, io: TrustIO): void {
  const grants = grantsOf(config);
  if (grants.length === 0) return;
  io.out(`${heading}:\n`);
  for (const g of grants) io.out(`  ${g}\n`);
}

function filesOf(p: Project, cwd: string): string[] {
  const rel = (path: string) => relative(cwd, path) || path;
  return [...(p.config ? [rel(p.config)] : []), ...p.filterFiles.map(rel)];
}

function whatIs(contents: ProjectContents, filters: number): string {
  const parts: string[] = [];
  if (contents.config) parts.push(contents.config.shown);
  if (contents.filters.length > 0) {
    parts.push(`${count(filters, 'filter')} in ${count(contents.filters.length, 'file')} of .cg/filters`);
  }
  return parts.join(' and ');
}

/** The settings of a config that reach off the machine, read a secret, write somewhere or speak to the agent. */
export function grantsOf(cfg: CgConfig): string[] {
  const out: string[] = [];
  const m = cfg.model;
  const d = MODEL_CONFIG_DEFAULTS;
  if (m.source !== d.source || m.model || m.baseUrl || m.api || m.apiKeyEnv !== d.apiKeyEnv) {
    const url = m.baseUrl ?? `the ${m.api ?? 'openai'} default URL`;
    const when = m.source === 'config' ? ', for every model call' : '';
    out.push(`model: ${m.model ?? '$CG_MODEL'} at ${url} with the key in $${m.apiKeyEnv}${when}`);
  }
  const s = cfg.store;
  if (s.dir) out.push(`store: originals kept in ${s.dir} (unless CG_STORE_DIR is set)`);
  if (s.url) {
    const server = parseRedisUrl(s.url).display; // never the password
    out.push(
      `store: originals sent to the Redis server ${server} under ${s.prefix} (unless CG_STORE_URL is set)`,
    );
  }
  if (s.ttlDays !== STORE_CONFIG_DEFAULTS.ttlDays || s.maxBytes !== STORE_CONFIG_DEFAULTS.maxBytes) {
    out.push(
      `store limits: ${s.ttlDays} days, ${s.maxBytes / 2 ** 20} MiB, for the store it uses${s.dir ? '' : ' (the one shared by every project)'}`,
    );
  }
  if (s.hint !== DEFAULT_HINT) out.push(`marker hint: ${JSON.stringify(s.hint)}`);
  return out;
}

function count(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? '' : 's'}`;
}
