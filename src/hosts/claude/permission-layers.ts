/**
 * Where Claude Code's permission rules for a session come from, read the way Claude Code 2.1.332
 * reads them (checked in its binary): the user's settings (`$CLAUDE_CONFIG_DIR` or `~/.claude`),
 * the project's `.claude/settings.json` and `.claude/settings.local.json` in the directory Claude
 * Code was started in, managed settings (`/etc/claude-code/managed-settings.json`, its `.d/` folder,
 * and the cached remote `remote-settings.json`), and the command line of the running `claude`
 * (`--settings FILE|JSON`, `--allowedTools`, `--disallowedTools`, `--setting-sources`). The
 * command line and start directory come from the Claude Code process this hook runs under, found
 * through /proc; where that cannot be read (no /proc, no claude ancestor) the answer is "cannot
 * know", and the hook leaves the call alone.
 *
 * Whatever could make a rule set wrong in the permissive direction is a reason to give up: a
 * settings file that is not JSON or whose `permissions` is malformed, a sandbox setting (its
 * excluded commands match command text, which a rewrite changes). Extra deny and ask rules only
 * make cg more careful, so those of parent directories' `.claude/` are added too.
 */
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { HostProcess } from '../host.js';
import type { RuleSet } from './permission-rules.js';

/** The running Claude Code: its argv (after the program) and the directory it was started in. */
export type Layers = { ok: true; rules: RuleSet } | { ok: false; why: string };

type Source = 'user' | 'project' | 'local';

const MANAGED_DIR = '/etc/claude-code';

/** The nearest ancestor process that is Claude Code, through /proc; undefined when there is none. */
export function claudeProcess(): HostProcess | undefined {
  let pid = process.ppid;
  for (let depth = 0; depth < 8 && pid > 1; depth++) {
    try {
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      if (argv.at(-1) === '') argv.pop();
      const exe = basename(readlinkSync(`/proc/${pid}/exe`));
      if (/^claude(\.exe)?$/.test(exe) || /^claude(\.exe)?$/.test(basename(argv[0] ?? ''))) {
        return { args: argv.slice(1), cwd: readlinkSync(`/proc/${pid}/cwd`) };
      }
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      pid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** `--flag v1 v2 --next` and `--flag=v`: the values of every occurrence of these flags. */
function flagValues(args: readonly string[], names: readonly string[]): string[] | undefined {
  let seen = false;
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const eq = names.find((n) => a.startsWith(`${n}=`));
    if (eq) {
      seen = true;
      out.push(a.slice(eq.length + 1));
    } else if (names.includes(a)) {
      seen = true;
      while (i + 1 < args.length && !args[i + 1]!.startsWith('-')) out.push(args[++i]!);
    }
  }
  return seen ? out : undefined;
}

/** `Bash(git log:*),Read Edit` → the rules, split on commas and spaces outside parentheses. */
export function splitRuleList(values: readonly string[]): string[] {
  const rules: string[] = [];
  for (const v of values) {
    let depth = 0;
    let cur = '';
    for (const c of v) {
      if (c === '(') depth++;
      if (c === ')') depth = Math.max(0, depth - 1);
      if (depth === 0 && (c === ',' || c === ' ')) {
        if (cur.trim()) rules.push(cur.trim());
        cur = '';
      } else cur += c;
    }
    if (cur.trim()) rules.push(cur.trim());
  }
  return rules;
}

class Unsure extends Error {}

function strings(v: unknown, where: string): string[] {
  if (v === undefined) return [];
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string'))
    throw new Unsure(`${where} is not a list of rules`);
  return v;
}

/** The permission rules of one settings document (empty when it has none). */
function rulesOf(text: string, where: string): RuleSet & { managedOnly: boolean } {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new Unsure(`${where} is not JSON`);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
    throw new Unsure(`${where} is not an object`);
  const d = doc as Record<string, unknown>;
  if (d.sandbox !== undefined) throw new Unsure(`${where} configures the sandbox`);
  const p = d.permissions;
  if (p === undefined) return { allow: [], ask: [], deny: [], managedOnly: false };
  if (typeof p !== 'object' || p === null) throw new Unsure(`${where}: permissions is not an object`);
  const perms = p as Record<string, unknown>;
  return {
    allow: strings(perms.allow, `${where}: permissions.allow`),
    ask: strings(perms.ask, `${where}: permissions.ask`),
    deny: strings(perms.deny, `${where}: permissions.deny`),
    managedOnly: d.allowManagedPermissionRulesOnly === true,
  };
}

/** Every layer's rules, merged as Claude Code merges them (each list is the union). */
export function readLayers(
  claude: HostProcess,
  env: NodeJS.ProcessEnv,
  managedDir: string = MANAGED_DIR,
): Layers {
  try {
    const home = env.CLAUDE_CONFIG_DIR || join(env.HOME || '/', '.claude');
    const sources = flagValues(claude.args, ['--setting-sources']);
    const loads = (s: Source) => !sources || splitRuleList(sources).includes(s);
    const file = (path: string) => (existsSync(path) ? rulesOf(readFileSync(path, 'utf8'), path) : undefined);
    const layers: { rules: RuleSet; managed: boolean; denyOnly?: boolean }[] = [];
    const add = (r: (RuleSet & { managedOnly: boolean }) | undefined, managed: boolean, load = true) => {
      if (r) layers.push({ rules: r, managed, denyOnly: !load });
    };

    add(file(join(home, 'settings.json')), false, loads('user'));
    add(file(join(claude.cwd, '.claude', 'settings.json')), false, loads('project'));
    add(file(join(claude.cwd, '.claude', 'settings.local.json')), false, loads('local'));
    for (let d = dirname(claude.cwd); d !== dirname(d); d = dirname(d)) {
      for (const f of ['settings.json', 'settings.local.json'])
        add(file(join(d, '.claude', f)), false, false);
    }
    add(file(join(managedDir, 'managed-settings.json')), true);
    const dropIns = join(managedDir, 'managed-settings.d');
    if (existsSync(dropIns)) {
      for (const f of readdirSync(dropIns).sort()) if (f.endsWith('.json')) add(file(join(dropIns, f)), true);
    }
    add(file(join(home, 'remote-settings.json')), true);

    for (const v of flagValues(claude.args, ['--settings']) ?? []) {
      if (v.trimStart().startsWith('{')) add(rulesOf(v, '--settings'), false);
      else if (existsSync(resolve(claude.cwd, v))) add(file(resolve(claude.cwd, v)), false);
      else throw new Unsure(`--settings ${v} cannot be read`);
    }
    const allowed = splitRuleList(flagValues(claude.args, ['--allowedTools', '--allowed-tools']) ?? []);
    const denied = splitRuleList(flagValues(claude.args, ['--disallowedTools', '--disallowed-tools']) ?? []);
    layers.push({ rules: { allow: allowed, ask: [], deny: denied }, managed: false });

    const managedOnly = layers.some((l) => l.managed && (l.rules as { managedOnly?: boolean }).managedOnly);
    const rules = { allow: [] as string[], ask: [] as string[], deny: [] as string[] };
    for (const l of layers) {
      rules.deny.push(...l.rules.deny);
      rules.ask.push(...l.rules.ask);
      if (!l.denyOnly && (l.managed || !managedOnly)) rules.allow.push(...l.rules.allow);
    }
    return { ok: true, rules };
  } catch (err) {
    if (err instanceof Unsure) return { ok: false, why: err.message };
    return { ok: false, why: `cannot read Claude Code's settings: ${(err as Error).message}` };
  }
}
