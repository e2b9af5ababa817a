/**
 * `cg init claude|codex [--global|--project] [--dry-run] [--uninstall]` puts cg's PreToolUse hook
 * into the agent's settings (Claude Code: ~/.claude/settings.json or ./.claude/settings.json; Codex:
 * ~/.codex/hooks.json or ./.codex/hooks.json), or takes it out, leaving every other setting and hook
 * as it was (hook/settings.ts). A changed file is written atomically after the previous one is
 * copied to FILE.cg-backup; --dry-run prints the unified diff and writes nothing. Running it twice
 * changes nothing the second time.
 *
 * `cg init agents-md` prints a paragraph for AGENTS.md / CLAUDE.md that tells an agent what
 * `<<cg:KEY>>` markers are and how to get the original back.
 */
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { ConfigError, UsageError } from '../errors.js';
import { unifiedDiff } from '../hook/diff.js';
import { type HookEntry, installHook, uninstallHook } from '../hook/settings.js';
import { claudeProxyEdit, proxyUrlOf } from '../proxy/claude-settings.js';
import { codexSnippet } from '../proxy/setup.js';

export const INIT_TARGETS = ['claude', 'codex', 'agents-md'] as const;
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
}

/** Seconds the agent waits for `cg hook`; it answers in milliseconds, so this only bounds a hang. */
const HOOK_TIMEOUT_S = 10;

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

function settingsPath(target: 'claude' | 'codex', scope: 'global' | 'project', ctx: InitContext): string {
  const home = ctx.env.HOME || homedir();
  if (target === 'claude') {
    const dir =
      scope === 'project' ? join(ctx.cwd, '.claude') : ctx.env.CLAUDE_CONFIG_DIR || join(home, '.claude');
    return join(dir, 'settings.json');
  }
  const dir = scope === 'project' ? join(ctx.cwd, '.codex') : ctx.env.CODEX_HOME || join(home, '.codex');
  return join(dir, 'hooks.json');
}

function hookEntry(target: 'claude' | 'codex'): HookEntry {
  return { matcher: 'Bash', command: `cg hook ${target}`, timeout: HOOK_TIMEOUT_S };
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
  const agent = target as 'claude' | 'codex';
  if (flags.proxy !== undefined && agent === 'codex') {
    // Codex's provider lives in config.toml, which cg does not edit: it prints the lines instead.
    ctx.out(
      `# add to ~/.codex/config.toml (with cg proxy running):\n${codexSnippet(proxyUrlOf(flags.proxy))}\n`,
    );
    return 0;
  }
  const file = settingsPath(agent, flags.project ? 'project' : 'global', ctx);
  const before = existsSync(file) ? readFileSync(file, 'utf8') : undefined;
  const proxy = flags.proxy !== undefined;
  const edit = proxy
    ? claudeProxyEdit(before, proxyUrlOf(flags.proxy), !!flags.uninstall)
    : flags.uninstall
      ? uninstallHook(before)
      : installHook(before, hookEntry(agent));
  if (!edit.ok) throw new ConfigError('', edit.reason, file);
  const what = proxy ? 'the cg proxy setting (env.ANTHROPIC_BASE_URL)' : 'the cg hook';

  if (!edit.changed) {
    ctx.out(
      flags.uninstall
        ? `cg: no ${proxy ? 'cg proxy setting' : 'cg hook'} in ${file}; nothing to do\n`
        : `cg: ${what} is already in ${file}; nothing to do\n`,
    );
    return 0;
  }
  if (flags.dryRun) {
    ctx.out(
      unifiedDiff(before ?? '', edit.text, before === undefined ? '/dev/null' : `a/${file}`, `b/${file}`),
    );
    ctx.out('cg: dry run: nothing written\n');
    return 0;
  }
  const backup = writeWithBackup(file, before, edit.text);
  const saved = backup ? ` (previous file saved as ${backup})` : '';
  if (flags.uninstall) {
    ctx.out(`cg: removed ${what} from ${file}${saved}\n`);
    return 0;
  }
  if (proxy) {
    ctx.out(
      `cg: added ${what} to ${file}${saved}\ncg: start the proxy with \`cg proxy\`; Claude Code sessions started from now on use it\n`,
    );
    return 0;
  }
  ctx.out(`cg: added the cg hook to ${file}${saved}\n`);
  ctx.out(
    agent === 'claude'
      ? 'cg: it applies to Claude Code sessions started from now on; check it with /hooks\n'
      : 'cg: Codex runs a new hook only once you trust it: open /hooks in Codex (hooks need Codex 0.124 or later)\n',
  );
  ctx.out(
    `cg: to tell the agent about <<cg:KEY>> markers: cg init agents-md >> ${agent === 'claude' ? 'CLAUDE.md' : 'AGENTS.md'}\n`,
  );
  if (!onPath('cg', ctx.env)) {
    ctx.err(
      'cg: note: `cg` is not on PATH, and the agent runs `cg hook` and `cg run` by name (npm link puts it there)\n',
    );
  }
  return 0;
}

/** Writes text to file atomically, first copying the file that was there to FILE.cg-backup. */
function writeWithBackup(file: string, before: string | undefined, text: string): string | undefined {
  mkdirSync(dirname(file), { recursive: true });
  let backup: string | undefined;
  let mode = 0o644;
  if (before !== undefined) {
    backup = `${file}.cg-backup`;
    copyFileSync(file, backup);
    mode = statSync(file).mode & 0o777;
  }
  const tmp = `${file}.cg-tmp-${process.pid}`;
  writeFileSync(tmp, text, { mode });
  renameSync(tmp, file);
  return backup;
}

function onPath(name: string, env: NodeJS.ProcessEnv): boolean {
  return (env.PATH ?? '').split(delimiter).some((dir) => dir !== '' && existsSync(join(dir, name)));
}
