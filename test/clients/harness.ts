/**
 * What every real-client suite shares: which clients were installed (run.mjs writes the status),
 * a private world per run (HOME, store, state, config — never the real home), spawning a client
 * with a time limit, counting tokens, and checking markers against `cg expand`.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTokens } from '../../src/tokens.js';
import { ROOT } from '../helpers.js';

export const CG = join(ROOT, 'bin', 'cg.js');

export interface ClientStatus {
  ok: boolean;
  bin?: string;
  version?: string;
  reported?: string;
  why?: string;
}

/** The clients clients.json pins. */
export type ClientName = 'claude' | 'codex' | 'gemini' | 'opencode';

/** The installed client, or why it is not there (so its suite is skipped by name, never passed). */
export function client(name: ClientName): ClientStatus {
  const file = process.env.CG_CLIENTS_STATUS;
  if (!file || !existsSync(file))
    return { ok: false, why: 'run through `npm run test:clients` (it installs the clients)' };
  const all = JSON.parse(readFileSync(file, 'utf8')) as Record<string, ClientStatus>;
  return all[name] ?? { ok: false, why: `${name} is not in clients.json` };
}

export function skipReason(name: ClientName): string | undefined {
  const c = client(name);
  if (c.ok) return undefined;
  process.stderr.write(`test:clients: SKIPPING ${name}: ${c.why}\n`);
  return c.why;
}

/** A fresh world for one client run: nothing of the real HOME is read or written. */
export interface World {
  root: string;
  home: string;
  work: string;
  store: string;
  env: Record<string, string>;
}

export function makeWorld(prefix: string): World {
  // Not under /tmp: Codex refuses some setup under a temporary directory, and its sandbox treats
  // /tmp as writable, which would hide what a real home looks like.
  const base = process.env.CG_CLIENTS_WORK || join(ROOT, 'node_modules', '.cache', 'cg-clients', 'runs');
  mkdirSync(base, { recursive: true });
  // Every world's path has the same length: a tool that wraps or cuts lines by width (pytest's
  // failure report) must print the same text in the world with cg and the one without.
  const root = mkdtempSync(join(existsSync(base) ? base : tmpdir(), prefix.padEnd(16, '-')));
  const home = join(root, 'home');
  const work = join(root, 'work');
  const store = join(root, 'store');
  for (const d of [home, work]) mkdirSync(d, { recursive: true });
  return {
    root,
    home,
    work,
    store,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: home,
      LANG: 'C.UTF-8',
      CG_STORE_DIR: store,
      CG_STATE_DIR: join(root, 'state'),
      XDG_CONFIG_HOME: join(home, '.config'),
      XDG_CACHE_HOME: join(home, '.cache'),
      PYTHONDONTWRITEBYTECODE: '1',
      // pytest lists differing dict items in hash order: one seed, one order in every world.
      PYTHONHASHSEED: '0',
    },
  };
}

export interface Spawned {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a client to completion, killed after limitMs. */
export function run(
  cmd: string,
  args: string[],
  opts: { cwd: string; env: Record<string, string>; limitMs?: number },
): Promise<Spawned> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: opts.cwd, env: opts.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.limitMs ?? 180_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** `cg …` with a world's environment. */
export function cg(world: World, args: string[], input?: string): Spawned {
  const r = spawnSync(process.execPath, [CG, ...args], {
    cwd: world.work,
    env: world.env,
    input: input ?? '',
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const tokens = createTokens('o200k');

export async function countTokens(texts: readonly string[]): Promise<number> {
  let n = 0;
  for (const t of texts) n += await tokens.count(t);
  return n;
}

export const MARKER_RE = /<<cg:([0-9a-f]{16})>>/g;

export function markersIn(text: string): string[] {
  return [...text.matchAll(MARKER_RE)].map((m) => m[1]!);
}

/** The original behind a key, byte for byte, or undefined when `cg expand` cannot find it. */
export function expand(world: World, key: string): string | undefined {
  const r = cg(world, ['expand', key]);
  return r.code === 0 ? r.stdout : undefined;
}

/** One line per step for the note: label, tokens without and with cg. */
export function table(rows: readonly { label: string; without: number; with: number }[]): string {
  const lines = rows.map(
    (r) => `  ${r.label.padEnd(36)} ${String(r.without).padStart(7)} → ${String(r.with).padStart(7)}`,
  );
  return lines.join('\n');
}

export interface TableRow {
  label: string;
  without: number;
  with: number;
}

/** The note's block for a session: a title, one line per step, the total and the share saved. */
export function sessionTable(title: string, rows: readonly TableRow[]): string {
  const without = rows.reduce((n, r) => n + r.without, 0);
  const withTotal = rows.reduce((n, r) => n + r.with, 0);
  const saved = Math.round((100 * (without - withTotal)) / without);
  return `${title}\n${table(rows)}\n  total ${without} → ${withTotal} (${saved} % fewer)\n`;
}
