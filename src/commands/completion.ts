/**
 * `cg completion bash|zsh|fish`: a completion script generated from the commander program itself —
 * its commands (at any depth), their options, the choices of options and arguments, and which
 * options take a file — so it can never fall behind the CLI. Each script finds the command path
 * typed so far (`cg`, `cg store`, …) and offers that level's subcommands and options; the value of
 * an option with choices completes from them, a file option from files, and after `cg run --` the
 * names of commands. The default command's options are offered at the top level too. Names that
 * only cg knows at the time (the filters of this project and user, for `cg filters show|test`) are
 * asked of cg itself when completing (namesFrom).
 */
import type { Command, Option } from 'commander';
import { UsageError } from '../errors.js';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

interface OptionSpec {
  flags: string[];
  description: string;
  takesValue: boolean;
  choices?: readonly string[];
  file: boolean;
}

interface CommandSpec {
  /** `cg`, `cg store`, … */
  path: string;
  description: string;
  /** Child commands by every name they answer to (aliases too), with the name they stand for. */
  children: { name: string; target: string; description: string }[];
  options: OptionSpec[];
  /** Choices of the first positional argument, when it has any. */
  argChoices?: readonly string[];
  /** After one of these first arguments, the next word completes from cg's own output. */
  names?: NamesFrom;
}

/** The words after `after` (a first argument) are the lines `cg ARGV…` prints. */
export interface NamesFrom {
  after: readonly string[];
  argv: readonly string[];
}

const NAMES = new WeakMap<Command, NamesFrom>();

/** Makes completion offer the lines of `cg ARGV…` after the given first arguments of cmd. */
export function namesFrom(cmd: Command, after: readonly string[], argv: readonly string[]): Command {
  NAMES.set(cmd, { after, argv });
  return cmd;
}

const HELP: OptionSpec = {
  flags: ['-h', '--help'],
  description: 'show help',
  takesValue: false,
  file: false,
};

function optionSpec(o: Option): OptionSpec {
  const flags = [o.short, o.long].filter((f): f is string => typeof f === 'string');
  const takesValue = o.required || o.optional;
  return {
    flags,
    description: o.description,
    takesValue,
    ...(o.argChoices ? { choices: o.argChoices } : {}),
    file: takesValue && /<(file|path|dir)[^>]*>/.test(o.flags),
  };
}

/** Every command of the program, depth first, as plain data. */
export function commandSpecs(program: Command): CommandSpec[] {
  const out: CommandSpec[] = [];
  const walk = (cmd: Command, path: string, inherited: OptionSpec[]) => {
    const subs = cmd.commands.filter((c) => c.name() !== 'help');
    const own = cmd.options.map(optionSpec);
    // The default command's options work without naming it (`cg -p safe`).
    const deflt = (cmd as Command & { _defaultCommandName?: string })._defaultCommandName;
    const defaultOptions = deflt ? (subs.find((c) => c.name() === deflt)?.options.map(optionSpec) ?? []) : [];
    const arg = cmd.registeredArguments[0];
    out.push({
      path,
      description: cmd.description(),
      children: subs.flatMap((c) =>
        [c.name(), ...c.aliases()].map((name) => ({ name, target: c.name(), description: c.description() })),
      ),
      options: dedupe([...own, ...defaultOptions, ...inherited, HELP]),
      ...(arg?.argChoices ? { argChoices: arg.argChoices } : {}),
      ...(NAMES.has(cmd) ? { names: NAMES.get(cmd)! } : {}),
    });
    for (const c of subs) walk(c, `${path} ${c.name()}`, []);
  };
  walk(program, program.name(), []);
  return out;
}

function dedupe(options: OptionSpec[]): OptionSpec[] {
  const seen = new Set<string>();
  return options.filter((o) => {
    const key = o.flags.join(',');
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

export function completionScript(shell: string, program: Command): string {
  const specs = commandSpecs(program);
  switch (shell) {
    case 'bash':
      return bash(specs, program.name());
    case 'zsh':
      return zsh(specs, program.name());
    case 'fish':
      return fish(specs, program.name());
    default:
      throw new UsageError(`completion: unknown shell "${shell}" (expected ${SHELLS.join(', ')})`);
  }
}

/** Quoting for a word inside a double-quoted bash/zsh case pattern or a single-quoted string. */
const sq = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;
const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();

/** `case "$cmdpath $word" in …` arms that step into a subcommand. */
function pathArms(specs: readonly CommandSpec[], indent: string, sep: string): string[] {
  return specs.flatMap((s) =>
    s.children.map(
      (c) => `${indent}${sq(`${s.path} ${c.name}`)}) cmdpath=${sq(`${s.path} ${c.target}`)}${sep}`,
    ),
  );
}

function bash(specs: readonly CommandSpec[], name: string): string {
  const fn = `_${name}_completion`;
  const valueArms: string[] = [];
  for (const s of specs) {
    for (const o of s.options.filter((o) => o.takesValue)) {
      const pattern = o.flags.map((f) => sq(`${s.path}|${f}`)).join('|');
      const action = o.choices
        ? `COMPREPLY=($(compgen -W ${sq(o.choices.join(' '))} -- "$cur"))`
        : o.file
          ? `COMPREPLY=($(compgen -f -- "$cur"))`
          : 'COMPREPLY=()';
      valueArms.push(`    ${pattern}) ${action}; return ;;`);
    }
    if (s.names) {
      const pattern = s.names.after.map((a) => sq(`${s.path}|${a}`)).join('|');
      const list = `${name} ${s.names.argv.join(' ')} 2>/dev/null`;
      valueArms.push(`    ${pattern}) COMPREPLY=($(compgen -W "$(${list})" -- "$cur")); return ;;`);
    }
  }
  const wordArms = specs.map((s) => {
    const words = [
      ...s.children.map((c) => c.name),
      ...(s.argChoices ?? []),
      ...s.options.flatMap((o) => o.flags),
    ];
    return `    ${sq(s.path)}) words=${sq(words.join(' '))} ;;`;
  });
  return `# ${name} completion for bash. Generated from ${name}'s own command definitions:
# regenerate with \`${name} completion bash\`. Load with: source <(${name} completion bash)
${fn}() {
  local cur prev cmdpath word words i
  cur="\${COMP_WORDS[COMP_CWORD]}"
  prev="\${COMP_WORDS[COMP_CWORD-1]}"
  cmdpath=${sq(name)}
  for ((i = 1; i < COMP_CWORD; i++)); do
    word="\${COMP_WORDS[i]}"
    if [[ "$word" == "--" ]]; then
      COMPREPLY=($(compgen -c -- "$cur"))
      return
    fi
    case "$cmdpath $word" in
${pathArms(specs, '      ', ' ;;').join('\n')}
    esac
  done
  case "$cmdpath|$prev" in
${valueArms.join('\n')}
  esac
  case "$cmdpath" in
${wordArms.join('\n')}
    *) words='' ;;
  esac
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -o default -F ${fn} ${name}
`;
}

/** zsh _describe entries: `name:description`, colons in the name escaped. */
const zshEntry = (word: string, description: string) =>
  sq(`${word.replaceAll(':', '\\:')}:${oneLine(description)}`);

function zsh(specs: readonly CommandSpec[], name: string): string {
  const fn = `_${name}`;
  const valueArms: string[] = [];
  for (const s of specs) {
    for (const o of s.options.filter((o) => o.takesValue)) {
      const pattern = o.flags.map((f) => sq(`${s.path}|${f}`)).join('|');
      const action = o.choices
        ? `compadd -- ${o.choices.map(sq).join(' ')}`
        : o.file
          ? '_files'
          : `_message ${sq(oneLine(o.description))}`;
      valueArms.push(`    (${pattern}) ${action}; return ;;`);
    }
    if (s.names) {
      const pattern = s.names.after.map((a) => sq(`${s.path}|${a}`)).join('|');
      const list = `${name} ${s.names.argv.join(' ')} 2>/dev/null`;
      valueArms.push(`    (${pattern}) compadd -- \${(f)"$(${list})"}; return ;;`);
    }
  }
  const levelArms = specs.map((s) => {
    const cmds = s.children.map((c) => zshEntry(c.name, c.description));
    const args = (s.argChoices ?? []).map((c) => zshEntry(c, ''));
    const opts = s.options.flatMap((o) => o.flags.map((f) => zshEntry(f, o.description)));
    const lines = [`    (${sq(s.path)})`];
    if (cmds.length)
      lines.push(
        `      local -a cmds; cmds=(${cmds.join(' ')})`,
        `      _describe -t commands 'command' cmds`,
      );
    if (args.length)
      lines.push(`      local -a args; args=(${args.join(' ')})`, `      _describe -t values 'value' args`);
    lines.push(`      if [[ "$PREFIX" == -* ]] || (( \${#cmds} + \${#args} == 0 )); then`);
    lines.push(
      `        local -a opts; opts=(${opts.join(' ')})`,
      `        _describe -t options 'option' opts`,
    );
    lines.push(`      fi`);
    if (!cmds.length && !args.length) lines.push('      _files');
    lines.push('      ;;');
    return lines.join('\n');
  });
  return `#compdef ${name}
# ${name} completion for zsh. Generated from ${name}'s own command definitions:
# regenerate with \`${name} completion zsh\`. Load with: source <(${name} completion zsh)
${fn}() {
  local cmdpath=${sq(name)} word i
  local -a cmds args
  for ((i = 2; i < CURRENT; i++)); do
    word=\${words[i]}
    if [[ "$word" == "--" ]]; then
      _command_names
      return
    fi
    case "$cmdpath $word" in
${pathArms(specs, '      (', ' ;;').join('\n')}
    esac
  done
  case "$cmdpath|\${words[CURRENT-1]}" in
${valueArms.join('\n')}
  esac
  case "$cmdpath" in
${levelArms.join('\n')}
  esac
}
if [[ "\${zsh_eval_context[-1]}" == loadautofunc ]]; then
  ${fn} "$@"
else
  compdef ${fn} ${name}
fi
`;
}

/** fish strings: single-quoted, with \\ and \\' escaped. */
const fq = (s: string) => `'${s.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;

function fish(specs: readonly CommandSpec[], name: string): string {
  const fn = `__${name}_path`;
  const arms = specs.flatMap((s) =>
    s.children.map(
      (c) =>
        `        case ${fq(`${s.path} ${c.name}`)}\n            set cmdpath ${fq(`${s.path} ${c.target}`)}`,
    ),
  );
  const lines: string[] = [];
  for (const s of specs) {
    const when = `-n ${fq(`test (${fn}) = ${fq(s.path)}`)}`;
    for (const c of s.children)
      lines.push(`complete -c ${name} ${when} -f -a ${fq(c.name)} -d ${fq(oneLine(c.description))}`);
    if (s.argChoices) lines.push(`complete -c ${name} ${when} -f -a ${fq(s.argChoices.join(' '))}`);
    if (s.names) {
      const after = `test (${fn}) = ${fq(s.path)}; and contains -- (commandline -opc)[-1] ${s.names.after.join(' ')}`;
      lines.push(
        `complete -c ${name} -n ${fq(after)} -f -a ${fq(`(${name} ${s.names.argv.join(' ')} 2>/dev/null)`)}`,
      );
    }
    for (const o of s.options) {
      const names = o.flags
        .map((f) => (f.startsWith('--') ? `-l ${f.slice(2)}` : `-s ${f.slice(1)}`))
        .join(' ');
      const value = o.takesValue
        ? o.choices
          ? ` -x -a ${fq(o.choices.join(' '))}`
          : o.file
            ? ' -r -F'
            : ' -x'
        : '';
      lines.push(`complete -c ${name} ${when} ${names}${value} -d ${fq(oneLine(o.description))}`);
    }
  }
  return `# ${name} completion for fish. Generated from ${name}'s own command definitions:
# regenerate with \`${name} completion fish\`. Load with: ${name} completion fish | source
function ${fn}
    set -l cmdpath ${fq(name)}
    set -l tokens (commandline -opc)
    set -e tokens[1]
    for word in $tokens
        if test "$word" = "--"
            echo "$cmdpath --"
            return
        end
        switch "$cmdpath $word"
${arms.join('\n')}
        end
    end
    echo $cmdpath
end
complete -c ${name} -n ${fq(`string match -q -- '* --' (${fn})`)} -f -a '(__fish_complete_command)'
${lines.join('\n')}
`;
}
