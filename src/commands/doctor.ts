/**
 * `cg doctor`: for each agent host cg can plug into (src/hosts/), whether cg's hook is installed
 * (user and project settings), whether the host will run it (Codex: trusted; Gemini CLI: hooks
 * enabled and cg's MCP server registered), which host version is on PATH and whether it is new
 * enough, and — the check that counts — the installed hook command run on a tiny payload of that
 * host, with its answer checked against the shape that host accepts. Older cg entries that no
 * longer act (a cg command under an event cg does not install) and a Codex sandbox that cannot
 * write cg's store are reported too. Exit 1 when something would silently not work, else 0 (also when nothing is
 * installed: there is nothing broken). The round trip is a self-check, not a use of cg: it runs
 * with a store and stats ledger of its own, removed afterwards (probeSandbox). `--json` prints the
 * same report as one object (DoctorReport).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { isCgHookCommand, valueAt } from '../hosts/hook/settings.js';
import type { Host, Scope } from '../hosts/host.js';
import { HOSTS, WRAP_ONLY_HOSTS } from '../hosts/index.js';
import { isHostName } from '../hosts/names.js';
import { arrayAt, objectAt, stringAt } from '../json/payload.js';
import type { DoctorCheck } from '../proxy/doctor.js';

export interface DoctorContext {
  env: NodeJS.ProcessEnv;
  cwd: string;
  out(text: string): void;
  /** Runs a command line with input on stdin (tests substitute their own). */
  exec?: (
    command: string,
    input: string,
    env: NodeJS.ProcessEnv,
  ) => { code: number | null; stdout: string; ms: number };
  /** The host binary's --version output, or undefined when it is not on PATH. */
  version?: (host: Host) => string | undefined;
  /** The proxy checks (tests substitute their own; default src/proxy/doctor.ts). */
  proxyChecks?: (o: { env: NodeJS.ProcessEnv }) => Promise<DoctorCheck[]>;
}

interface Installed {
  file: string;
  scope: Scope;
  commands: { event: string; command: string }[];
  legacy: string[];
}

const sh = (command: string, input: string, env: NodeJS.ProcessEnv) => {
  const t0 = Date.now();
  const r = spawnSync('/bin/sh', ['-c', command], {
    input,
    env,
    encoding: 'utf8',
    timeout: 15_000,
    maxBuffer: 1 << 24,
  });
  return { code: r.status, stdout: r.stdout ?? '', ms: Date.now() - t0 };
};

function onPath(bin: string, env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir && existsSync(join(dir, bin))) return join(dir, bin);
  }
  return undefined;
}

const hostVersion = (env: NodeJS.ProcessEnv) => (host: Host) => {
  const bin = onPath(host.version.bin, env);
  if (!bin) return undefined;
  const r = spawnSync(bin, [...host.version.args], { env, encoding: 'utf8', timeout: 30_000 });
  return r.status === 0 ? `${r.stdout}${r.stderr}` : undefined;
};

function newer(a: string, b: string): boolean {
  const x = a.split('.').map(Number);
  const y = b.split('.').map(Number);
  for (let i = 0; i < 3; i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) > (y[i] ?? 0);
  return true;
}

async function installed(host: Host, ctx: DoctorContext, home: string): Promise<Installed[]> {
  const found: Installed[] = [];
  for (const scope of ['global', 'project'] as const) {
    const file = host.settingsFile(scope, ctx.env, ctx.cwd, home);
    // In the home directory the project's settings are the user's: one file, checked once.
    if (!existsSync(file) || found.some((f) => resolve(f.file) === resolve(file))) continue;
    const text = readFileSync(file, 'utf8');
    if (host.ownFile) {
      const command = host.ownFile.command(text);
      const event = host.entries[0]?.event;
      if (command !== undefined && event !== undefined)
        found.push({ file, scope, commands: [{ event, command }], legacy: [] });
      continue;
    }
    const hooks = objectAt(await valueAt(text, ['hooks']));
    if (!hooks) continue;
    const commands: Installed['commands'] = [];
    const legacy: string[] = [];
    for (const [event, groups] of Object.entries(hooks)) {
      for (const g of arrayAt(groups) ?? []) {
        for (const h of arrayAt(g, 'hooks') ?? []) {
          const command = stringAt(h, 'command');
          if (command === undefined || !isCgHookCommand(command)) continue;
          if (host.entries.some((e) => e.event === event)) commands.push({ event, command });
          else legacy.push(event);
        }
      }
    }
    if (commands.length > 0 || legacy.length > 0) found.push({ file, scope, commands, legacy });
  }
  return found;
}

/** One line of the report; `unknown` is a check that could not be made (a host not on PATH). */
export interface DoctorLine {
  status: 'ok' | 'fail' | 'unknown' | 'warn';
  detail: string;
  /** The hook round trip's settings file, event, command and time. */
  file?: string;
  /** The first event the command is installed under; `events` lists them all. */
  event?: string;
  events?: string[];
  command?: string;
  ms?: number;
}

export interface HostReport {
  host: Host['name'];
  title: string;
  installed: boolean;
  /** The host's version on PATH, null when it is not there. */
  version: string | null;
  checks: DoctorLine[];
}

/** What `cg doctor --json` prints (keys are only ever added, never renamed). */
export interface DoctorReport {
  ok: boolean;
  /** Whether any integration (a hook, the proxy) is in use. */
  installed: boolean;
  hosts: HostReport[];
  /** Hosts cg reaches by `cg wrap` only, with the door that does. */
  wrapOnly: { host: string; title: string; detail: string }[];
  proxy: { used: boolean; checks: DoctorCheck[] };
}

export async function doctorCommand(ctx: DoctorContext & { json?: boolean }): Promise<number> {
  const report = await doctorReport(ctx);
  ctx.out(ctx.json ? `${JSON.stringify(report, null, 2)}\n` : renderDoctor(report));
  return report.ok ? 0 : 1;
}

/** A hook's answer: undefined for none, a JSON value, or a problem's text when it is not JSON. */
function parsedAnswer(stdout: string): unknown {
  if (stdout.trim() === '') return undefined;
  try {
    return JSON.parse(stdout);
  } catch {
    return { notJson: stdout.slice(0, 80) };
  }
}

export async function doctorReport(ctx: DoctorContext): Promise<DoctorReport> {
  const home = ctx.env.HOME || homedir();
  const exec = ctx.exec ?? sh;
  const versionOf = ctx.version ?? hostVersion(ctx.env);
  const hosts: HostReport[] = [];
  const sandbox = await probeSandbox(ctx);
  try {
    for (const host of HOSTS) {
      const places = await installed(host, ctx, home);
      const report: HostReport = {
        host: host.name,
        title: host.title,
        installed: places.length > 0,
        version: null,
        checks: [],
      };
      hosts.push(report);
      if (places.length === 0) continue;
      const out = versionOf(host);
      const version = out === undefined ? undefined : host.version.parse(out);
      report.version = version ?? null;
      const say = (ok: boolean, detail: string, extra: Omit<DoctorLine, 'status' | 'detail'> = {}) =>
        report.checks.push({ status: ok ? 'ok' : 'fail', detail, ...extra });
      if (version === undefined)
        report.checks.push({
          status: 'unknown',
          detail: `${host.version.bin} is not on PATH: its version cannot be checked`,
        });
      else
        say(
          newer(version, host.version.minimum),
          `version ${version} (needs ${host.version.minimum}: ${host.version.why})`,
        );
      for (const inst of places) {
        for (const event of inst.legacy) {
          say(
            false,
            `${inst.file}: an older cg entry under ${event} that no longer acts: run cg init ${host.name}${inst.scope === 'project' ? ' --project' : ''} to migrate it`,
          );
        }
        // One round trip per hook command and kind of call: the same command under two events
        // answers the same, except under an event the host has a probe of its own for.
        const byCommand = new Map<string, string[]>();
        for (const { event, command } of inst.commands)
          byCommand.set(command, [...(byCommand.get(command) ?? []), event]);
        for (const [command, installedUnder] of byCommand) {
          const own = (host.eventProbes ?? []).filter((p) => installedUnder.includes(p.event));
          const events = installedUnder.filter((e) => !own.some((p) => p.event === e));
          for (const probe of own) {
            const e = exec(command, JSON.stringify(probe.payload), sandbox.env);
            const trouble = e.code !== 0 ? `exited ${e.code}` : probe.check(parsedAnswer(e.stdout));
            say(
              trouble === undefined,
              `${inst.file} (${probe.event}): ${command} ${trouble === undefined ? `takes a ${probe.event} call as ${host.title} expects (${e.ms} ms)` : `on a ${probe.event} call: ${trouble}`}`,
              { file: inst.file, event: probe.event, events: [probe.event], command, ms: e.ms },
            );
          }
          if (events.length === 0) continue;
          const r = exec(command, JSON.stringify(host.probe.payload), sandbox.env);
          let answer: unknown;
          try {
            answer = JSON.parse(r.stdout);
          } catch {
            answer = undefined;
          }
          const problem =
            r.code !== 0
              ? `exited ${r.code}`
              : answer === undefined
                ? 'gave no JSON answer'
                : host.probe.check(answer);
          say(
            problem === undefined,
            `${inst.file} (${events.join(', ')}): ${command} ${problem === undefined ? `answers as ${host.title} expects (${r.ms} ms)` : problem}`,
            { file: inst.file, event: events[0]!, events, command, ms: r.ms },
          );
        }
        const problems = (await host.doctorProblems?.(inst.file, { env: ctx.env, cwd: ctx.cwd, home })) ?? [];
        for (const p of problems) say(false, p);
      }
      for (const gap of host.hookGaps) report.checks.push({ status: 'warn', detail: gap });
    }
  } finally {
    sandbox.close();
  }
  const { proxyDoctor } = await import('../proxy/doctor.js');
  const checks = await (ctx.proxyChecks ?? proxyDoctor)({ env: ctx.env });
  const up = checks.find((c) => c.name === 'proxy')?.status === 'ok';
  const pointed = checks.some((c) => isHostName(c.name) && c.status === 'ok');
  const proxy = { used: up || pointed, checks };
  const failed =
    hosts.some((h) => h.checks.some((c) => c.status === 'fail')) ||
    (proxy.used && checks.some((c) => c.status === 'fail'));
  const wrapOnly = WRAP_ONLY_HOSTS.map((h) => ({ host: h.name, title: h.title, detail: h.doors }));
  return { ok: !failed, installed: proxy.used || hosts.some((h) => h.installed), hosts, wrapOnly, proxy };
}

/**
 * The environment the hook round trip runs in: a store and a state directory of its own, removed
 * afterwards, so doctor's probe leaves no store entry and no run in `cg stats` (CG_STATS=0 as well,
 * for a cg that keeps its ledger elsewhere). A Redis store the user set up is switched off for it
 * (CG_STORE_URL=none) — only then, since an older cg would read "none" as a broken URL. The user's
 * config still applies: a hook broken by it must still show up here.
 */
async function probeSandbox(ctx: DoctorContext): Promise<{ env: NodeJS.ProcessEnv; close(): void }> {
  const dir = mkdtempSync(join(tmpdir(), 'cg-doctor-'));
  const env: NodeJS.ProcessEnv = {
    ...ctx.env,
    CG_DISABLE: '',
    CG_STORE_DIR: join(dir, 'store'),
    CG_STATE_DIR: join(dir, 'state'),
    CG_STATS: '0',
  };
  if (ctx.env.CG_STORE_URL || (await configuredStoreUrl(ctx))) env.CG_STORE_URL = 'none';
  return { env, close: () => rmSync(dir, { recursive: true, force: true }) };
}

async function configuredStoreUrl(ctx: DoctorContext): Promise<string | undefined> {
  try {
    const { loadConfig } = await import('../config.js');
    return (await loadConfig(undefined, ctx.env, ctx.cwd, { onNote: () => undefined })).store.url;
  } catch {
    return undefined; // a broken config shows up in the round trip itself
  }
}

/** The report as doctor prints it on a terminal: a block per host, then the proxy. */
export function renderDoctor(report: DoctorReport): string {
  let text = '';
  for (const h of report.hosts) {
    if (!h.installed) {
      text += `${h.title}: cg is not installed (cg init ${h.host})\n`;
      continue;
    }
    text += `${h.title}${h.version ? ` ${h.version}` : ''}:\n`;
    for (const c of h.checks) text += `  ${MARK[c.status]} ${c.detail}\n`;
  }
  for (const w of report.wrapOnly ?? []) text += `${w.title}: ${w.detail}\n`;
  if (!report.proxy.used) text += 'cg proxy: not in use (cg proxy, then cg init claude --proxy)\n';
  else {
    text += 'cg proxy:\n';
    for (const c of report.proxy.checks) text += `  ${MARK[c.status]} ${c.detail}\n`;
  }
  if (!report.installed) text += 'cg: no agent integration installed; nothing to check\n';
  return text;
}

const MARK: Record<DoctorLine['status'], string> = {
  ok: 'ok  ',
  fail: 'FAIL',
  unknown: '?   ',
  warn: 'warn',
};
