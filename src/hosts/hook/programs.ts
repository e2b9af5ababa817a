/**
 * What cg knows about programs before any filter is asked: which names are shell builtins (they
 * must run in the agent's shell: `cd` under `cg run` would change nothing), which run with other
 * privileges, and which are interactive or never end (an editor, a pager, a REPL, `tail -f`, a dev
 * server) — `cg run` holds output until the command exits and gives it no terminal, so wrapping
 * those would hang or break them. Each check takes the program's name and its arguments as written.
 */

/** Builtins and shell-level commands: they act on the shell itself or only exist inside it. */
const BUILTINS = new Set([
  '.',
  ':',
  '[',
  'alias',
  'bg',
  'bind',
  'break',
  'builtin',
  'caller',
  'cd',
  'command',
  'compgen',
  'complete',
  'continue',
  'declare',
  'dirs',
  'disown',
  'echo',
  'enable',
  'eval',
  'exec',
  'exit',
  'export',
  'false',
  'fc',
  'fg',
  'getopts',
  'hash',
  'help',
  'history',
  'jobs',
  'kill',
  'let',
  'local',
  'logout',
  'mapfile',
  'popd',
  'printf',
  'pushd',
  'pwd',
  'read',
  'readarray',
  'readonly',
  'return',
  'set',
  'shift',
  'shopt',
  'source',
  'suspend',
  'test',
  'times',
  'trap',
  'true',
  'type',
  'typeset',
  'ulimit',
  'umask',
  'unalias',
  'unset',
  'wait',
]);

/** Commands that change who runs the rest, and may prompt for a password. */
const PRIVILEGED = new Set(['sudo', 'doas', 'su', 'pkexec', 'run0', 'runuser']);

/** Always interactive (full-screen or prompt-driven), whatever the arguments. */
const ALWAYS_INTERACTIVE = new Set([
  'vi',
  'vim',
  'nvim',
  'view',
  'vimdiff',
  'nano',
  'pico',
  'micro',
  'emacs',
  'ed',
  'less',
  'more',
  'most',
  'pg',
  'man',
  'info',
  'top',
  'htop',
  'btop',
  'atop',
  'iotop',
  'nvtop',
  'glances',
  'watch',
  'tmux',
  'screen',
  'zellij',
  'fzf',
  'ranger',
  'nnn',
  'mc',
  'tig',
  'lazygit',
  'lazydocker',
  'k9s',
  'ncdu',
  'mutt',
  'neomutt',
  'w3m',
  'lynx',
  'links',
  'telnet',
  'ftp',
  'sftp',
  'mosh',
  'ipython',
  'bpython',
  'irb',
  'pry',
  'ghci',
  'gdb',
  'lldb',
  'pdb',
  'visudo',
  'vipw',
  'passwd',
  'nodemon',
]);

/** Language runtimes that start a REPL when given no script, code flag or module. */
const REPLS: Record<string, readonly string[]> = {
  python: ['-c', '-m'],
  python2: ['-c', '-m'],
  python3: ['-c', '-m'],
  node: ['-e', '--eval', '-p', '--print'],
  deno: [],
  bun: [],
  ruby: ['-e'],
  perl: ['-e', '-E'],
  php: ['-r', '-f'],
  lua: ['-e'],
  R: ['-e', '-f', '--file'],
  julia: ['-e', '--eval'],
  scala: ['-e'],
  sbt: [],
  bash: ['-c'],
  sh: ['-c'],
  zsh: ['-c'],
  fish: ['-c'],
  dash: ['-c'],
  ksh: ['-c'],
};

/** Flags that make a runtime print something and exit instead of starting a REPL. */
const NOT_A_REPL = new Set(['-V', '-v', '--version', '-h', '--help', '--test']);

/** Database shells: interactive unless given something to execute. */
const DB_SHELLS: Record<string, readonly string[]> = {
  psql: ['-c', '--command', '-f', '--file', '-l', '--list'],
  mysql: ['-e', '--execute'],
  mariadb: ['-e', '--execute'],
  sqlite3: [],
  'redis-cli': [],
  mongo: ['--eval'],
  mongosh: ['--eval', '-f', '--file'],
};

/** Options of ssh that take a value (so the host is the first word that is not one of these). */
const SSH_VALUE_OPTIONS = new Set('BbcDEeFIiJLlmOoPpQRSWw'.split('').map((c) => `-${c}`));

/** Package-manager scripts that, by convention, start servers or watchers. */
const SERVER_SCRIPTS = new Set(['dev', 'start', 'serve', 'server', 'watch', 'preview']);

export function isBuiltin(name: string): boolean {
  return BUILTINS.has(name);
}

export function isPrivileged(name: string): boolean {
  return PRIVILEGED.has(name);
}

/** Why the program cannot run under `cg run` (interactive or endless), or undefined when it can. */
export function interactiveReason(name: string, args: readonly string[]): string | undefined {
  if (ALWAYS_INTERACTIVE.has(name)) return `${name} is interactive`;
  if (args.some((a) => a === '--watch' || a === '--watchAll' || a === '--follow'))
    return `${name} runs until interrupted (watch/follow mode)`;

  const repl = REPLS[name];
  if (repl) {
    if (args.includes('-i') || args.includes('--interactive')) return `${name} -i is interactive`;
    const runsSomething = args.some(
      (a) => !a.startsWith('-') || repl.includes(a) || a.startsWith('-c') || NOT_A_REPL.has(a),
    );
    if (!runsSomething) return `${name} without a script starts a REPL`;
    return undefined;
  }
  const db = DB_SHELLS[name];
  if (db) {
    if (args.some((a) => db.includes(a) || db.some((o) => o.startsWith('--') && a.startsWith(`${o}=`))))
      return undefined;
    // sqlite3 DB 'SQL' and redis-cli GET k carry their statement as a second bare word.
    const bare = args.filter((a) => !a.startsWith('-'));
    if ((name === 'sqlite3' && bare.length >= 2) || (name === 'redis-cli' && bare.length >= 1))
      return undefined;
    return `${name} without a statement is interactive`;
  }
  switch (name) {
    case 'ssh':
      return sshIsInteractive(args) ? 'ssh without a remote command is interactive' : undefined;
    case 'tail':
    case 'journalctl':
      return args.some((a) => /^-[a-zA-Z]*[fF]/.test(a) && !a.startsWith('--'))
        ? `${name} -f runs until interrupted`
        : undefined;
    case 'docker':
    case 'podman':
    case 'kubectl':
      return containerReason(name, args);
    case 'git':
      return gitReason(args);
    case 'npm':
    case 'pnpm':
    case 'yarn':
    case 'bun': {
      const words = args.filter((a) => !a.startsWith('-'));
      const script = words[0] === 'run' || words[0] === 'run-script' ? words[1] : words[0];
      if (script && SERVER_SCRIPTS.has(script)) return `${name} ${script} starts a server or watcher`;
      if (words[0] === 'init' || words[0] === 'create') return `${name} ${words[0]} prompts`;
      return undefined;
    }
    default:
      return undefined;
  }
}

function sshIsInteractive(args: readonly string[]): boolean {
  let host: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (host !== undefined) return false; // a word after the host: a remote command
    if (a === '-t' || a === '-tt') return true;
    if (SSH_VALUE_OPTIONS.has(a)) {
      i++;
      continue;
    }
    if (a.startsWith('-')) continue;
    host = a;
  }
  return true;
}

function containerReason(name: string, args: readonly string[]): string | undefined {
  const sub = args.find((a) => !a.startsWith('-'));
  if (sub === 'logs' && args.some((a) => a === '-f' || a === '--follow'))
    return `${name} logs -f runs until interrupted`;
  if (sub === 'run' || sub === 'exec' || sub === 'attach') {
    const tty = args.some(
      (a) => a === '--tty' || a === '--stdin' || a === '--interactive' || /^-[a-zA-Z]*[it]/.test(a),
    );
    if (tty || sub === 'attach') return `${name} ${sub} with a terminal is interactive`;
  }
  return undefined;
}

function gitReason(args: readonly string[]): string | undefined {
  const sub = args.find((a) => !a.startsWith('-'));
  const has = (...flags: string[]) => args.some((a) => flags.includes(a));
  if (sub === 'add' && has('-p', '--patch', '-i', '--interactive', '-e', '--edit'))
    return 'git add -p is interactive';
  if (sub === 'rebase' && has('-i', '--interactive')) return 'git rebase -i opens an editor';
  if (
    sub === 'commit' &&
    !args.some((a) => /^(-[a-zA-Z]*[mFC]|--message|--file|--no-edit|--fixup|--reuse-message)/.test(a))
  )
    return 'git commit without a message opens an editor';
  if (sub === 'mergetool' || sub === 'difftool') return `git ${sub} is interactive`;
  return undefined;
}

/**
 * Programs whose output is often large and that read without changing anything: worth compacting
 * even when no cg filter knows them (the generic components fold long lists, logs and files).
 */
const OUTPUT_HEAVY = new Set([
  'cat',
  'grep',
  'egrep',
  'fgrep',
  'rg',
  'ag',
  'find',
  'sed',
  'head',
  'tail',
  'ls',
  'tree',
  'diff',
  'jq',
  'git',
]);

export function isOutputHeavy(name: string): boolean {
  return OUTPUT_HEAVY.has(name);
}
