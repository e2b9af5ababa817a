/**
 * `cg doctor`: for each agent host cg can plug into (src/hosts/), whether cg's hook is installed
 * (user and project settings), whether the host will run it (Codex: trusted; Gemini CLI: hooks
 * enabled and cg's MCP server registered), which host version is on PATH and whether it is new
 * enough, and — the check that counts — the installed hook command run on a tiny payload of that
 * host, with its answer checked against the shape that host accepts. Older cg entries that no
 * longer work (Claude Code's PreToolUse rewrite) and a Codex sandbox that cannot write cg's store
 * are reported too. Exit 1 when something would silently not work, else 0 (also when nothing is
 * installed: there is nothing broken).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { delimiter, join, resolve, sep } from 'node:path';
import { isCgHookCommand, valueAt } from '../hook/settings.js';
import type { Host, Scope } from '../hosts/host.js';
import { HOSTS } from '../hosts/index.js';
import type { DoctorCheck } from '../proxy/doctor.js';
import { resolveStoreDir } from '../store/location.js';

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
    if (!existsSync(file)) continue;
    const text = readFileSync(file, 'utf8');
    const hooks = await valueAt(text, ['hooks']);
    if (typeof hooks !== 'object' || hooks === null) continue;
    const byEvent = hooks as Record<string, unknown>;
    const commands: Installed['commands'] = [];
    const legacy: string[] = [];
    for (const [event, groups] of Object.entries(byEvent)) {
      if (!Array.isArray(groups)) continue;
      for (const g of groups) {
        const handlers = (g as { hooks?: unknown }).hooks;
        if (!Array.isArray(handlers)) continue;
        for (const h of handlers) {
          const command = (h as { command?: unknown }).command;
          if (!isCgHookCommand(command)) continue;
          if (host.entries.some((e) => e.event === event))
            commands.push({ event, command: command as string });
          else legacy.push(event);
        }
      }
    }
    if (commands.length > 0 || legacy.length > 0) found.push({ file, scope, commands, legacy });
  }
  return found;
}

/** Problems particular to a host: trust, enablement, what its hook needs besides the entry. */
async function hostProblems(
  host: Host,
  inst: Installed,
  ctx: DoctorContext,
  home: string,
): Promise<string[]> {
  const problems: string[] = [];
  if (host.name === 'codex') {
    const codexHome = ctx.env.CODEX_HOME || join(home, '.codex');
    const config = join(codexHome, 'config.toml');
    const text = existsSync(config) ? readFileSync(config, 'utf8') : '';
    if (!text.includes(`${inst.file}:pre_tool_use`) || !/trusted_hash\s*=/.test(text)) {
      problems.push(
        `Codex has not trusted this hook (codex exec skips it silently): open /hooks in Codex and trust "cg hook codex"`,
      );
    }
    const store = resolveStoreDir(ctx.env);
    const roots = [...text.matchAll(/writable_roots\s*=\s*\[([^\]]*)\]/g)].flatMap((m) =>
      [...m[1]!.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((x) => x[1]!),
    );
    const writable = [ctx.cwd, '/tmp', ctx.env.TMPDIR ?? tmpdir(), ...roots].map((r) => resolve(r));
    const inside = writable.some((r) => store === r || store.startsWith(r + sep));
    if (!inside && !/sandbox_mode\s*=\s*"danger-full-access"/.test(text)) {
      problems.push(
        `in Codex's workspace-write sandbox cg cannot write its store ${store} (output passes through raw, no markers): add it to writable_roots under [sandbox_workspace_write] in ${config}`,
      );
    }
  }
  if (host.name === 'gemini') {
    const text = readFileSync(inst.file, 'utf8');
    if ((await valueAt(text, ['hooksConfig', 'enabled'])) === false) {
      problems.push(`hooks are disabled (hooksConfig.enabled is false in ${inst.file})`);
    }
    if ((await valueAt(text, ['mcpServers', 'cg'])) === undefined) {
      problems.push(
        `cg's MCP server is not registered as "cg" in ${inst.file}: the hook hands output back through it (cg init gemini adds it)`,
      );
    }
  }
  return problems;
}

export async function doctorCommand(ctx: DoctorContext): Promise<number> {
  const home = ctx.env.HOME || homedir();
  const exec = ctx.exec ?? sh;
  const versionOf = ctx.version ?? hostVersion(ctx.env);
  let failed = false;
  let any = false;
  for (const host of HOSTS) {
    const places = await installed(host, ctx, home);
    if (places.length === 0) {
      ctx.out(`${host.title}: cg is not installed (cg init ${host.name})\n`);
      continue;
    }
    any = true;
    const out = versionOf(host);
    const version = out === undefined ? undefined : host.version.parse(out);
    ctx.out(`${host.title}${version ? ` ${version}` : ''}:\n`);
    const say = (ok: boolean, line: string) => {
      if (!ok) failed = true;
      ctx.out(`  ${ok ? 'ok  ' : 'FAIL'} ${line}\n`);
    };
    if (version === undefined)
      ctx.out(`  ?    ${host.version.bin} is not on PATH: its version cannot be checked\n`);
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
      for (const { event, command } of inst.commands) {
        const r = exec(command, JSON.stringify(host.probe.payload), { ...ctx.env, CG_DISABLE: '' });
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
          `${inst.file} (${event}): ${command} ${problem === undefined ? `answers as ${host.title} expects (${r.ms} ms)` : problem}`,
        );
      }
      for (const p of await hostProblems(host, inst, ctx, home)) say(false, p);
    }
  }
  const proxy = await proxySection(ctx);
  if (proxy.used) any = true;
  if (proxy.failed) failed = true;
  if (!any) ctx.out('cg: no agent integration installed; nothing to check\n');
  return failed ? 1 : 0;
}

/**
 * The proxy door: reported when a client points at a cg proxy or one answers. A client pointed at a
 * proxy that does not answer fails (its requests would fail); a proxy nobody uses is only a warning.
 */
async function proxySection(ctx: DoctorContext): Promise<{ used: boolean; failed: boolean }> {
  const { proxyDoctor } = await import('../proxy/doctor.js');
  const checks = await (ctx.proxyChecks ?? proxyDoctor)({ env: ctx.env });
  const up = checks.find((c) => c.name === 'proxy')?.status === 'ok';
  const pointed = checks.some((c) => (c.name === 'claude' || c.name === 'codex') && c.status === 'ok');
  if (!up && !pointed) {
    ctx.out('cg proxy: not in use (cg proxy, then cg init claude --proxy)\n');
    return { used: false, failed: false };
  }
  ctx.out('cg proxy:\n');
  let failed = false;
  for (const c of checks) {
    if (c.status === 'fail') failed = true;
    ctx.out(`  ${c.status === 'ok' ? 'ok  ' : c.status === 'fail' ? 'FAIL' : 'warn'} ${c.detail}\n`);
  }
  return { used: true, failed };
}
