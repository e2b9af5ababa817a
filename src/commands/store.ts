/**
 * `cg store path|info|prune|clear`: returns the text to print (complete lines, ending in a newline),
 * never prints itself. `--json` output is a stable object per action whose keys may be added to,
 * never renamed (scripts read it). An unknown action is a UsageError; a clear or prune that cannot
 * change the store throws StoreActionError (exit 1). On a terminal, clear asks first (`--yes` skips
 * the question); before it removes anything it settles pending stats records, so their counts stay
 * exact and no text of an original outlives the store in the state directory. Imports nothing
 * heavy up front: this runs on the CLI's fast path.
 */
import { UsageError } from '../errors.js';
import { type PruneResult, type Store, StoreActionError, type StoreInfo } from '../store/store.js';
import { STORE_ACTIONS } from './actions.js';

export { STORE_ACTIONS };

export interface StoreCommandOptions {
  json?: boolean;
  /** The clock for entry ages; tests pin it. */
  now?: number;
  /** `--yes`: clear without asking. */
  yes?: boolean;
  /** Asks a person; given only when one is at a terminal (the CLI passes askOnTerminal then). */
  ask?: (question: string) => Promise<boolean>;
  /** For the state directory whose pending records clear settles; default process.env. */
  env?: NodeJS.ProcessEnv;
}

export async function storeCommand(action: string, store: Store, opts: StoreCommandOptions): Promise<string> {
  const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
  switch (action) {
    case 'path':
      return opts.json ? json({ dir: store.dir }) : `${store.dir}\n`;
    case 'info': {
      const info = await store.info();
      return opts.json
        ? json(infoJson(info, opts.now ?? Date.now()))
        : infoText(info, opts.now ?? Date.now());
    }
    case 'prune': {
      const r = await store.prune({ force: true });
      return opts.json ? json(r) : pruneText(store, r);
    }
    case 'clear': {
      const info = !opts.yes && opts.ask ? await store.info() : undefined;
      if (opts.ask && info && info.entries > 0) {
        const what = `${plural(info.entries, 'entry', 'entries')} (${formatBytes(info.bytes)})`;
        if (!(await opts.ask(`remove all ${what} from ${store.dir}? [y/N] `))) {
          throw new StoreActionError(
            'store clear: not confirmed; nothing was removed (--yes skips the question)',
          );
        }
      }
      await settleStats(opts.env ?? process.env);
      const removed = await store.clear();
      return opts.json ? json({ removed }) : `removed ${plural(removed, 'entry', 'entries')}\n`;
    }
    default:
      throw new UsageError(
        `unknown store action ${JSON.stringify(action)}: expected one of ${STORE_ACTIONS.join(', ')}`,
      );
  }
}

/**
 * Counts pending stats records now, while the originals they refer to are still in the store, and
 * with them goes every short text they kept. Stats never stop a clear: a failure here only leaves
 * those records to be estimated later.
 */
async function settleStats(env: NodeJS.ProcessEnv): Promise<void> {
  try {
    const [{ settlePending }, { ledgerLocation }] = await Promise.all([
      import('../stats/pending.js'),
      import('../stats/paths.js'),
    ]);
    await settlePending(ledgerLocation(env));
  } catch {
    // as above
  }
}

/** A y/N question on stderr, answered on stdin; anything but y or yes is no. */
export async function askOnTerminal(question: string): Promise<boolean> {
  const { createInterface } = await import('node:readline/promises');
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^\s*y(es)?\s*$/i.test(await rl.question(question));
  } catch {
    return false; // stdin closed before an answer: no
  } finally {
    rl.close();
  }
}

function infoJson(info: StoreInfo, now: number): Record<string, unknown> {
  // Every key is always present (null when the store is empty) so consumers need no existence checks.
  const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());
  const age = (ms: number | undefined) =>
    ms === undefined ? null : Math.max(0, Math.round((now - ms) / 1000));
  return {
    backend: info.backend ?? 'disk',
    dir: info.dir,
    entries: info.entries,
    bytes: info.bytes,
    maxBytes: info.maxBytes,
    ttlDays: info.ttlDays,
    compress: info.compress,
    oldest: iso(info.oldestMtimeMs),
    newest: iso(info.newestMtimeMs),
    oldestAgeSeconds: age(info.oldestMtimeMs),
    newestAgeSeconds: age(info.newestMtimeMs),
    server: info.server ?? null,
    local: info.local
      ? { ...infoJson(info.local, now), fallback: info.local.fallback, cache: info.local.cache }
      : null,
  };
}

function infoText(info: StoreInfo, now: number): string {
  const ttl = info.ttlDays > 0 ? plural(info.ttlDays, 'day', 'days') : 'none';
  const rows: [string, string][] = [['backend', info.backend ?? 'disk']];
  const server = info.server;
  if (server) {
    const version = server.version ? ` (Redis ${server.version})` : '';
    rows.push(['server', server.error ? `${server.url}: ${server.error}` : `${server.url}${version}`]);
    rows.push(['prefix', server.prefix]);
  } else {
    rows.push(['dir', info.dir]);
  }
  rows.push(['entries', String(info.entries)]);
  if (server) {
    rows.push(['size', `${formatBytes(info.bytes)} (compressed values)`]);
    if (server.usedMemory !== undefined) rows.push(['memory', memoryText(server)]);
  } else {
    const cap = info.maxBytes > 0 ? formatBytes(info.maxBytes) : 'none';
    rows.push(['size', `${formatBytes(info.bytes)} of ${cap} cap`]);
  }
  if (info.oldestMtimeMs !== undefined) rows.push(['oldest', formatAge(now - info.oldestMtimeMs)]);
  if (info.newestMtimeMs !== undefined) rows.push(['newest', formatAge(now - info.newestMtimeMs)]);
  rows.push(['ttl', server && info.ttlDays > 0 ? `${ttl}, renewed by every use` : ttl]);
  const local = info.local;
  if (local) {
    const roles = [local.fallback ? 'fallback' : '', local.cache ? 'cache' : ''].filter(Boolean).join(', ');
    rows.push([
      'local',
      `${local.dir} (${roles}): ${plural(local.entries, 'entry', 'entries')}, ${formatBytes(local.bytes)}`,
    ]);
  }
  rows.push(['compress', info.compress ? 'gzip' : 'off']);
  const width = Math.max(...rows.map(([k]) => k.length));
  return rows.map(([k, v]) => `${k.padEnd(width)}  ${v}\n`).join('');
}

/** Redis memory: what a full server does next decides whether old markers keep expanding. */
function memoryText(server: NonNullable<StoreInfo['server']>): string {
  const used = formatBytes(server.usedMemory ?? 0);
  const max = server.maxMemory ? ` of ${formatBytes(server.maxMemory)} maxmemory` : ' (no maxmemory)';
  const policy = server.maxMemoryPolicy;
  const advice =
    policy === 'noeviction'
      ? ' (a full server refuses new entries; allkeys-lru evicts the least recently used instead)'
      : '';
  return `${used} used${max}${policy ? `, policy ${policy}` : ''}${advice}`;
}

function pruneText(store: Store, r: PruneResult): string {
  const remain = `${plural(r.remaining, 'entry', 'entries')} (${formatBytes(r.remainingBytes)}) remain`;
  if (!store.dir.startsWith('redis')) {
    return `removed ${plural(r.removed, 'entry', 'entries')} (${formatBytes(r.freedBytes)} freed); ${remain}\n`;
  }
  const expiry = r.expirySet ? `; gave ${plural(r.expirySet, 'entry', 'entries')} without one an expiry` : '';
  let text = `${store.dir} (Redis expires entries itself): ${remain}${expiry}\n`;
  if (r.local) text += `local store: ${pruneText({ ...store, dir: 'local' }, r.local)}`;
  return text;
}

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** Binary units, because the cap is configured as a power of two (512 MiB). */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  const text = v >= 100 || Number.isInteger(v) ? String(Math.round(v)) : v.toFixed(1);
  return `${text} ${units[i]}`;
}

export function formatAge(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return s < 5 ? 'just now' : `${s} seconds ago`;
  const steps: [number, string, string][] = [
    [60, 'minute', 'minutes'],
    [3600, 'hour', 'hours'],
    [86_400, 'day', 'days'],
  ];
  let chosen = steps[0]!;
  for (const step of steps) if (s >= step[0]) chosen = step;
  return `${plural(Math.floor(s / chosen[0]), chosen[1], chosen[2])} ago`;
}
