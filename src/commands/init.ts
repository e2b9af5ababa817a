/**
 * `cg init claude|codex|gemini|opencode [--global|--project] [--dry-run] [--uninstall]` puts cg's hook into
 * an agent host's settings (the file, event and matcher come from the host's table in src/hosts/),
 * or takes it out. Every byte of the file outside cg's entries stays as the user wrote it
^ * (hosts/hook/settings.ts); an older cg's entry (Claude Code's PreToolUse rewrite) is migrated in the
 * same edit. Permission rules are never touched. The hook is named by absolute path — this node and
 * this cg script — so the host finds it whatever its PATH; `cg doctor` checks it still runs.
 * What a host needs besides the entries comes from its row too (Gemini CLI: cg's MCP server, which
 * its hook hands output back through; Claude Code: marker hints naming a registered cg_expand). A changed file is written atomically after the previous one is copied to a new
 * FILE.cg-backup (never over an older backup: .1, .2, … follow). `--uninstall` of a file cg created
 * removes it when nothing else is left. --dry-run prints the unified diff and writes nothing.
 *
 * A host whose hook is a whole file of cg's (OpenCode's plugin, Host.ownFile) gets that file written
 * whole, without a backup, and removed on uninstall; a file of that name cg did not write is left alone.
 *
 * `cg init agents-md` prints a paragraph for AGENTS.md / CLAUDE.md that tells an agent what
 * `<<cg:KEY>>` markers are and how to get the original back.
 */
import {
  copyFileSync,
  existsSync,
  constants as fsc,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { dirname } from 'node:path';
import { ConfigError, UsageError } from '../errors.js';
import { unifiedDiff } from '../hosts/hook/diff.js';
import { type Edit, installHooks, isEmptyDocument, uninstallHooks } from '../hosts/hook/settings.js';
import type { Host, OwnFile, Place } from '../hosts/host.js';
import { HOSTS, hostNamed } from '../hosts/index.js';
import { HOST_NAMES } from '../hosts/names.js';
import { makeDirsSync } from '../make-dirs.js';
import { proxyUrlOf } from '../proxy/setup.js';
import { shellQuote } from '../run/quote.js';

export const INIT_TARGETS = [...HOST_NAMES, 'agents-md'] as const;
export type InitTarget = (typeof INIT_TARGETS)[number];

export interface InitFlags {
  global?: boolean;
  project?: boolean;
  dryRun?: boolean;
  uninstall?: boolean;
  /** `--proxy [url]`: point the agent at cg proxy instead of installing the hook. */
  proxy?: string | boolean;
}

export interface InitContext {
  env: NodeJS.ProcessEnv;
  cwd: string;
  out(text: string): void;
  err(text: string): void;
  /** How the host runs cg (default: this node and this cg script, quoted). */
  invocation?: string;
}

export const AGENTS_MD = `## Shortened command output (cg)

Some tool output in this session is shortened by cg. Where something was left out you will see a
marker such as \`<<cg:0123456789abcdef>>\`. Nothing is lost: the exact original is stored under that
key. To read it, run:

- \`cg expand KEY\` — the whole original output
- \`cg expand KEY --lines 120-180\` — only those lines (1-based; also \`120-\`, \`-40\`)
- \`cg expand KEY --grep 'FAILED|Error'\` — only the matching lines, as \`N:line\`

Prefer \`--grep\` or \`--lines\` to the whole output. Shell commands may run as \`cg run -- CMD\`; the
exit code is CMD's own. For unshortened output use \`cg run --raw -- CMD\`. A key that is no longer
stored means the original expired: run the command again.
`;

/** `'/usr/bin/node' '/…/cg/bin/cg.js'`: the cg running now, by absolute path. */
export function selfCommand(): string {
  const script = process.argv[1];
  return script ? `${shellQuote(process.execPath)} ${shellQuote(script)}` : 'cg';
}

function placeOf(flags: InitFlags, ctx: InitContext): Place {
  return {
    scope: flags.project ? 'project' : 'global',
    env: ctx.env,
    cwd: ctx.cwd,
    home: ctx.env.HOME || homedir(),
  };
}

export function settingsFileOf(host: Host, flags: InitFlags, ctx: InitContext): string {
  const { scope, env, cwd, home } = placeOf(flags, ctx);
  return host.settingsFile(scope, env, cwd, home);
}

/** The host's entries as they go into its settings, with the command cg is run by. */
export function entriesOf(host: Host, invocation: string, extra: readonly string[] = []) {
  return host.entries.map((e) => ({
    event: e.event,
    matcher: e.matcher,
    timeout: e.timeout,
    command: `${invocation} hook ${[...e.args, ...extra].map(shellQuote).join(' ')}`,
  }));
}

/** A host whose hook is a whole file of cg's (OpenCode's plugin): written whole, removed whole. */
function ownFileEdit(own: OwnFile, before: string | undefined, uninstall: boolean, invocation: string): Edit {
  if (before !== undefined && own.command(before) === undefined)
    return { ok: false, reason: 'this file was not written by cg: it is left as it is' };
  if (uninstall)
    return before === undefined
      ? { ok: true, text: '', changed: false }
      : { ok: true, text: '', changed: true };
  const text = own.text(invocation);
  return { ok: true, text, changed: text !== before };
}

async function edit(
  host: Host,
  before: string | undefined,
  flags: InitFlags,
  invocation: string,
  extra: readonly string[],
): Promise<Edit> {
  if (host.ownFile) return ownFileEdit(host.ownFile, before, !!flags.uninstall, invocation);
  const events = [...host.entries.map((e) => e.event), ...host.legacyEvents];
  const result = flags.uninstall
    ? await uninstallHooks(before, events)
    : await installHooks(before, entriesOf(host, invocation, extra), host.legacyEvents);
  if (!result.ok || !host.alsoInit) return result;
  const also = await host.alsoInit(
    result.text === '' ? (before ?? '') : result.text,
    !!flags.uninstall,
    invocation,
  );
  if (!also.ok) return also;
  return also.changed ? { ok: true, text: also.text, changed: true } : result;
}

export async function initCommand(target: string, flags: InitFlags, ctx: InitContext): Promise<number> {
  if (!(INIT_TARGETS as readonly string[]).includes(target)) {
    throw new UsageError(`init: unknown target "${target}" (expected ${INIT_TARGETS.join(', ')})`);
  }
  if (target === 'agents-md') {
    const flag = flags.global
      ? '--global'
      : flags.project
        ? '--project'
        : flags.uninstall
          ? '--uninstall'
          : flags.dryRun
            ? '--dry-run'
            : '';
    if (flag) throw new UsageError(`init agents-md: ${flag} does not apply (it only prints text)`);
    ctx.out(AGENTS_MD);
    return 0;
  }
  if (flags.global && flags.project) throw new UsageError('init: give --global or --project, not both');
  const host = hostNamed(target)!;
  const proxy = flags.proxy === undefined ? undefined : host.proxyInit;
  if (flags.proxy !== undefined && proxy === undefined) {
    const served = HOSTS.filter((h) => h.proxyInit).map((h) => h.name);
    throw new UsageError(`init ${target}: --proxy is for ${served.join(' and ')}`);
  }
  if (proxy && 'print' in proxy) {
    ctx.out(proxy.print(proxyUrlOf(flags.proxy)));
    return 0;
  }
  const file = settingsFileOf(host, flags, ctx);
  const before = existsSync(file) ? readFileSync(file, 'utf8') : undefined;
  const mcpTool = proxy ? undefined : host.registeredMcpTool?.(placeOf(flags, ctx));
  const result = proxy
    ? await proxy.edit(before, proxyUrlOf(flags.proxy), !!flags.uninstall)
    : await edit(
        host,
        before,
        flags,
        ctx.invocation ?? selfCommand(),
        mcpTool ? ['--mcp-tool', mcpTool] : [],
      );
  if (!result.ok) throw new ConfigError('', result.reason, file);
  const what = proxy ? proxy.what : 'the cg hook';

  if (!result.changed) {
    ctx.out(
      flags.uninstall
        ? `cg: no ${proxy ? 'cg proxy setting' : 'cg hook'} in ${file}; nothing to do\n`
        : `cg: ${what} is already in ${file}; nothing to do\n`,
    );
    return 0;
  }
  const removeFile =
    flags.uninstall &&
    before !== undefined &&
    (host.ownFile !== undefined || ((await isEmptyDocument(result.text)) && backups(file).length === 0));
  if (flags.dryRun) {
    ctx.out(
      unifiedDiff(
        before ?? '',
        removeFile ? '' : result.text,
        before === undefined ? '/dev/null' : `a/${file}`,
        removeFile ? '/dev/null' : `b/${file}`,
      ),
    );
    ctx.out('cg: dry run: nothing written\n');
    return 0;
  }
  if (removeFile) {
    unlinkSync(file);
    ctx.out(`cg: removed ${file} (cg had created it, and nothing else is left in it)\n`);
    return 0;
  }
  // A file wholly cg's needs no backup (and one beside a plugin would sit in the host's plugin folder).
  const backup = writeWithBackup(file, host.ownFile ? undefined : before, result.text);
  const saved = backup ? ` (previous file saved as ${backup})` : '';
  if (flags.uninstall) {
    ctx.out(`cg: removed ${what} from ${file}${saved}\n`);
    return 0;
  }
  if (proxy) {
    ctx.out(
      `cg: added ${what} to ${file}${saved}\ncg: start the proxy with \`cg proxy\`; ${host.title} sessions started from now on use it\n`,
    );
    return 0;
  }
  ctx.out(`cg: added the cg hook to ${file}${saved}\n`);
  if (mcpTool) ctx.out(`cg: cg mcp is registered: marker hints name its tool ${mcpTool}\n`);
  for (const line of host.afterInstall) ctx.out(`cg: ${line}\n`);
  ctx.out(`cg: to tell the agent about <<cg:KEY>> markers: cg init agents-md >> ${host.instructionsFile}\n`);
  ctx.out('cg: check the integration at any time with: cg doctor\n');
  return 0;
}

/** Existing backups of a file, oldest first. */
function backups(file: string): string[] {
  const out: string[] = [];
  for (let i = 0; ; i++) {
    const name = i === 0 ? `${file}.cg-backup` : `${file}.cg-backup.${i}`;
    if (!existsSync(name)) return out;
    out.push(name);
  }
}

/** Writes text to file atomically, first copying the file that was there to a new backup name. */
function writeWithBackup(file: string, before: string | undefined, text: string): string | undefined {
  makeDirsSync(dirname(file), 0o777);
  let backup: string | undefined;
  let mode = 0o644;
  if (before !== undefined) {
    const taken = backups(file).length;
    backup = taken === 0 ? `${file}.cg-backup` : `${file}.cg-backup.${taken}`;
    copyFileSync(file, backup, fsc.COPYFILE_EXCL);
    mode = statSync(file).mode & 0o777;
  }
  const tmp = `${file}.cg-tmp-${process.pid}`;
  writeFileSync(tmp, text, { mode });
  renameSync(tmp, file);
  return backup;
}
