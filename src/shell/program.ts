/**
 * What a shell command runs. programOf(command) names the program a command line is about, the way
 * a reader of the line would: the step that does the work in a list (`cd app && pytest -q` →
 * pytest), the first command of a pipeline (`pytest | tail -5` → pytest), past `VAR=value`
 * assignments and wrappers that only change how a program runs (`sudo -E`, `env -i`, `time`,
 * `nohup`, `nice -n 5`, `timeout 60`, `stdbuf -oL`, `command`, `exec`), and through launchers that
 * only start another program (`python3 -m pytest`, `npx vitest`, `uv run pytest`, `bash -c '…'`).
 * A command that only shows files (cat, grep, git show …) is a read, with the files it names.
 *
 * Built on the shell reader (parse.ts), which knows quoting, operators and
 * redirections; a command it will not read (a heredoc, a subshell, `if`/`for`) falls back to its
 * first line split at whitespace, so every command gets an answer. Used by failed_run (a read is not
 * a run), stats labels (one row per program and subcommand), and the gates (the same command ran
 * again). Pure and synchronous; nothing here runs anything.
 */
import { parseShell, type SimpleCommand, type Word } from './parse.js';

export interface Program {
  /** The program's name without its directory: "pytest", "git", "npm". */
  name: string;
  /** Its subcommand, when the next word is a plain word: "status" in `git status -s`, "test" in `npm test`. */
  sub?: string;
  /** The words after the program, quotes removed where that is plain to see. */
  args: string[];
  /** Set for a command that shows files or history rather than running anything: the files it names. */
  reads?: string[];
  /** How stats group it: name and subcommand, "pytest", "npm test", "git status". */
  label: string;
}

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*\+?=/;
const SUBCOMMAND = /^[A-Za-z][A-Za-z0-9:_-]*$/;

/**
 * Wrappers: they run the rest of the line as another command. For each, the options that take a
 * value (the next word, unless attached) and how many plain operands come before the command.
 */
const WRAPPERS: Record<string, { valued: readonly string[]; operands?: number; stop?: readonly string[] }> = {
  sudo: {
    valued: [
      '-u',
      '-g',
      '-h',
      '-p',
      '-C',
      '-D',
      '-r',
      '-t',
      '-T',
      '-U',
      '-R',
      '--user',
      '--group',
      '--host',
      '--prompt',
      '--chdir',
      '--role',
      '--type',
      '--other-user',
      '--close-from',
      '--chroot',
      '--command-timeout',
    ],
  },
  doas: { valued: ['-u', '-C'] },
  env: { valued: ['-u', '-C', '-S', '--unset', '--chdir', '--split-string'] },
  time: { valued: ['-f', '-o', '--format', '--output'] },
  nohup: { valued: [] },
  nice: { valued: ['-n', '--adjustment'] },
  ionice: { valued: ['-c', '-n', '-p', '--class', '--classdata'] },
  timeout: { valued: ['-s', '-k', '--signal', '--kill-after'], operands: 1 },
  stdbuf: { valued: ['-i', '-o', '-e', '--input', '--output', '--error'] },
  command: { valued: [], stop: ['-v', '-V'] },
  exec: { valued: ['-a'] },
  chronic: { valued: [] },
};

/** Launchers: `<name> <sub> PROGRAM …` runs PROGRAM (its options before it are skipped). */
const LAUNCHERS: Record<string, readonly string[]> = {
  npx: [],
  bunx: [],
  pnpx: [],
  uvx: [],
  pipx: ['run'],
  npm: ['exec', 'x'],
  pnpm: ['exec', 'dlx'],
  yarn: ['exec', 'dlx'],
  bun: ['x'],
  uv: ['run', 'tool run'],
  poetry: ['run'],
  pipenv: ['run'],
  pdm: ['run'],
  hatch: ['run'],
  rye: ['run'],
  conda: ['run'],
  bundle: ['exec'],
  mise: ['exec', 'x'],
};
/** Launcher options that take a value. */
const LAUNCHER_VALUED = new Set([
  '-p',
  '--package',
  '-n',
  '--name',
  '--with',
  '--python',
  '--env',
  '-e',
  '--from',
]);

const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh']);
const PYTHON = /^python(?:\d+(?:\.\d+)?)?$/;
/** Python options that take a value (`-X dev`, `-W error`). */
const PYTHON_VALUED = new Set(['-X', '-W', '-c', '--check-hash-based-pycs']);

/**
 * Commands that show files or history: how many leading operands are not files (a grep pattern, a
 * sed script) and which of their options take a value (`head -n 20`, `grep -e pat`).
 */
const READERS: Record<string, { skip: number; valued?: readonly string[] }> = {
  cat: { skip: 0 },
  bat: { skip: 0, valued: ['-l', '--language', '-r', '--line-range'] },
  batcat: { skip: 0, valued: ['-l', '--language', '-r', '--line-range'] },
  tac: { skip: 0 },
  head: { skip: 0, valued: ['-n', '-c', '--lines', '--bytes'] },
  tail: { skip: 0, valued: ['-n', '-c', '--lines', '--bytes'] },
  less: { skip: 0 },
  more: { skip: 0 },
  nl: { skip: 0 },
  wc: { skip: 0 },
  ls: { skip: 0 },
  tree: { skip: 0, valued: ['-L', '-I', '-P'] },
  stat: { skip: 0, valued: ['-c', '--format'] },
  file: { skip: 0 },
  diff: { skip: 0 },
  jq: { skip: 1, valued: ['--arg', '--argjson', '--indent'] },
  sed: { skip: 1, valued: ['-e', '-f', '--expression', '--file'] },
  awk: { skip: 1, valued: ['-F', '-v', '-f'] },
  grep: { skip: 1, valued: ['-e', '-f', '-m', '-A', '-B', '-C', '--max-count', '--regexp', '--file'] },
  egrep: { skip: 1, valued: ['-e', '-f', '-m', '-A', '-B', '-C'] },
  fgrep: { skip: 1, valued: ['-e', '-f', '-m', '-A', '-B', '-C'] },
  rg: {
    skip: 1,
    valued: ['-e', '-f', '-m', '-A', '-B', '-C', '-g', '-t', '-T', '--glob', '--type', '--regexp'],
  },
  ag: { skip: 1, valued: ['-A', '-B', '-C', '-G', '-m'] },
  echo: { skip: Number.POSITIVE_INFINITY },
  printf: { skip: Number.POSITIVE_INFINITY },
};
const GIT_READERS = new Set(['show', 'diff', 'log', 'blame', 'grep', 'cat-file', 'status', 'ls-files']);
/** Options that give the pattern or script, so the first operand is a file after all. */
const PATTERN_OPTIONS = new Set(['-e', '-f', '--regexp', '--file', '--expression']);

/** Setup steps in a list: they prepare the step that matters (`cd app && pytest`). */
const SETUP = new Set([
  'cd',
  'pushd',
  'popd',
  'export',
  'source',
  '.',
  'set',
  'unset',
  'true',
  ':',
  'ulimit',
  'umask',
  'shopt',
  'alias',
]);
/** Steps that only report on the others (`pytest; echo "exit $?"`). */
const REPORTS = new Set(['echo', 'printf']);
/** Options a program takes before its subcommand, with a value: `git -C repo status`. */
const GLOBAL_VALUED: Record<string, readonly string[]> = {
  git: ['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--exec-path'],
  docker: ['-H', '--host', '--context', '-c', '--config', '-l', '--log-level'],
  kubectl: ['-n', '--namespace', '--context', '--kubeconfig', '-s', '--server'],
  cargo: ['-C', '--config', '-Z'],
  npm: ['-w', '--workspace', '--prefix'],
  pnpm: ['-C', '--dir', '-F', '--filter'],
};

/** Shell words for lists of a few commands: more than this many are not read. */
const MAX_DEPTH = 3;

export function programOf(command: string | undefined, depth = 0): Program | undefined {
  if (!command || depth > MAX_DEPTH) return undefined;
  const parsed = parseShell(command);
  const steps = parsed.ok ? parsed.pipelines.map((p) => wordsOf(p.commands[0])) : [fallbackWords(command)];
  const programs = steps.map((words) => fromWords(words, depth)).filter((p) => p !== undefined);
  // The last step that does the work; else the last report (`echo hi`); else the last setup step.
  const rank = (p: Program) => (SETUP.has(p.name) ? 0 : REPORTS.has(p.name) ? 1 : 2);
  let best: Program | undefined;
  for (const p of programs) if (best === undefined || rank(p) >= rank(best)) best = p;
  return best;
}

/** A copy that shares no memory with a request body a string may be sliced from (V8 keeps a slice's parent). */
function flat(s: string): string {
  return s.length < 13 ? s : (JSON.parse(JSON.stringify(s)) as string);
}

/**
 * An answer about a command, remembered for the most recent commands: a proxy asks again about
 * every earlier output's command on each turn. Keys and string answers are copies (flat).
 */
function remembered<T>(answer: (command: string) => T, limit = 20_000): (command: string) => T {
  const known = new Map<string, T>();
  return (command) => {
    const hit = known.get(command);
    if (hit !== undefined) return hit;
    const raw = answer(command);
    const value = typeof raw === 'string' ? (flat(raw) as T) : raw;
    if (known.size >= limit) known.delete(known.keys().next().value as string);
    known.set(flat(command), value);
    return value;
  };
}

/** "The same command": the same text up to whitespace. */
export const commandKey = remembered((command: string): string => command.trim().replace(/\s+/g, ' '));

const readsOnly = remembered((command: string) => programOf(command)?.reads !== undefined);

/** Whether the command only shows files or history (its text is data, not a run). */
export function isReadCommand(command: string | undefined): boolean {
  return command !== undefined && readsOnly(command);
}

function wordsOf(cmd: SimpleCommand | undefined): string[] {
  return cmd ? cmd.words.map(unquote) : [];
}

/** A word's value where that is plain to see: 'x' and "x" lose their quotes; expansions stay as written. */
function unquote(w: Word): string {
  if (w.plain) return w.text;
  const m = /^'([^']*)'$/.exec(w.text) ?? /^"([^"$`\\]*)"$/.exec(w.text);
  return m ? m[1]! : w.text;
}

/**
 * The words of a command the shell reader will not read: its first line split at whitespace, up to
 * the first control operator, redirections (`>out`, `2>&1`, `<<EOF`) left out.
 */
function fallbackWords(command: string): string[] {
  const tokens = (command.trim().split('\n', 1)[0] ?? '').split(/\s+/).filter(Boolean);
  const words: string[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (/^(?:\|\|?|&&|;|&)$/.test(t)) break;
    const redirect = /^(?:\d*|&)(?:<<?-?|>>?)(?:&\d*)?/.exec(t);
    if (redirect) {
      if (redirect[0] === t) i++; // `> file`: the target is the next token
      continue;
    }
    words.push(t.replace(/^(['"])(.*)\1$/, '$2'));
  }
  return words;
}

function basename(word: string): string {
  return word.slice(word.lastIndexOf('/') + 1);
}

/** The program a simple command's words run, wrappers and launchers unwrapped. */
function fromWords(all: readonly string[], depth: number): Program | undefined {
  const first = all.findIndex((w) => !ASSIGNMENT.test(w));
  if (first < 0) return undefined;
  let words = all.slice(first);
  for (let hops = 0; hops < 8; hops++) {
    const name = basename(words[0]!);
    const rest = words.slice(1);
    const wrapper = WRAPPERS[name];
    if (wrapper) {
      if (wrapper.stop?.some((s) => rest.includes(s))) break;
      const inner = skipOptions(rest, wrapper.valued, wrapper.operands ?? 0);
      if (inner.length === 0) break;
      words = inner;
      continue;
    }
    if (SHELLS.has(name)) {
      const c = rest.findIndex((w) => /^-[a-z]*c[a-z]*$/.test(w));
      if (c >= 0 && rest[c + 1] !== undefined) return programOf(rest[c + 1], depth + 1);
      break;
    }
    if (PYTHON.test(name)) {
      const m = moduleOf(rest);
      if (m) {
        words = m;
        continue;
      }
      break;
    }
    const launched = launchedBy(name, rest);
    if (launched) {
      words = launched;
      continue;
    }
    break;
  }
  return describe(words);
}

/** The words after a wrapper's options and operands (empty when nothing follows them). */
function skipOptions(words: readonly string[], valued: readonly string[], operands: number): string[] {
  let i = 0;
  while (i < words.length) {
    const w = words[i]!;
    if (w === '--') {
      i++;
      break;
    }
    if (ASSIGNMENT.test(w)) {
      i++;
      continue;
    }
    if (!w.startsWith('-') || w === '-') break;
    // `-u root` takes the next word; `-uroot`, `--user=root` and `-n5` carry their value.
    i += valued.includes(w) ? 2 : 1;
  }
  return words.slice(Math.min(words.length, i + operands));
}

/** `python -m MODULE args` → [MODULE, args]; undefined for a script or `-c`. */
function moduleOf(words: readonly string[]): string[] | undefined {
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    if (w === '-m') return words[i + 1] !== undefined ? words.slice(i + 1) : undefined;
    if (w.startsWith('-m') && w.length > 2) return [w.slice(2), ...words.slice(i + 1)];
    if (w === '-c' || !w.startsWith('-')) return undefined;
    if (PYTHON_VALUED.has(w)) i++;
  }
  return undefined;
}

/** The words of the program a launcher starts (`npx vitest run` → [vitest, run]), or undefined. */
function launchedBy(name: string, rest: readonly string[]): string[] | undefined {
  const subs = LAUNCHERS[name];
  if (subs === undefined) return undefined;
  let i = 0;
  if (subs.length > 0) {
    const sub = subs.find((s) => s.split(' ').every((part, k) => rest[k] === part));
    if (sub === undefined) return undefined;
    i = sub.split(' ').length;
  }
  while (i < rest.length) {
    const w = rest[i]!;
    if (w === '--') {
      i++;
      break;
    }
    if (!w.startsWith('-')) break;
    i += LAUNCHER_VALUED.has(w) ? 2 : 1;
  }
  return i < rest.length ? rest.slice(i) : undefined;
}

function describe(words: readonly string[]): Program {
  const name = basename(words[0]!);
  const args = words.slice(1);
  const next = args[subcommandIndex(name, args)];
  const sub = next !== undefined && SUBCOMMAND.test(next) ? next : undefined;
  const p: Program = { name, args, label: sub ? `${name} ${sub}` : name };
  if (sub) p.sub = sub;
  const reads = readsOf(name, args);
  if (reads) p.reads = reads;
  return p;
}

/** Where a program's subcommand would be: after the global options it takes before one. */
function subcommandIndex(name: string, args: readonly string[]): number {
  const valued = GLOBAL_VALUED[name];
  if (valued === undefined) return 0;
  let i = 0;
  while (i < args.length && args[i]!.startsWith('-')) i += valued.includes(args[i]!) ? 2 : 1;
  return i;
}

/** The files a reading command names, or undefined when the command is not a read. */
function readsOf(name: string, args: readonly string[]): string[] | undefined {
  if (name === 'git') {
    const sub = args[subcommandIndex(name, args)];
    return sub !== undefined && GIT_READERS.has(sub) ? [] : undefined;
  }
  if (name === 'find') {
    // find's paths come before its first expression (`-name`, `(`, `!`).
    const end = args.findIndex((a) => /^(?:-|\\?[(!])/.test(a));
    return args.slice(0, end < 0 ? args.length : end);
  }
  const reader = READERS[name];
  if (reader === undefined) return undefined;
  // `sed -i` edits the files it names: a write, not a read.
  if (name === 'sed' && args.some((a) => /^(?:-[a-zA-Z]*i|--in-place)/.test(a))) return undefined;
  let skip = reader.skip;
  const files: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a.startsWith('-') && a !== '-') {
      if (PATTERN_OPTIONS.has(a)) skip = 0;
      if (reader.valued?.includes(a)) i++;
      continue;
    }
    if (skip > 0) skip--;
    else files.push(a);
  }
  return files;
}
