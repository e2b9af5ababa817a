/**
 * Decides how an agent's shell command is rewritten to go through `cg run`, or why it is left
 * alone. The rewrite is textual: `CG_SESSION=<id> CG_READER=model <cg> run -- ` is inserted in front
 * of each simple command that is safe to wrap and that a cg filter handles, and every other byte
 * stays as the agent wrote it — so quoting, globbing and `$( … )` are expanded by the agent's shell
 * exactly as before, and `cd x && make` becomes `cd x && … cg run -- make`, the `cd` still acting on
 * the shell that runs `make`. `<cg>` is how the host's shell finds cg: by absolute path (a login
 * shell may reset PATH), node and script both, so nothing in the command's environment decides
 * which cg runs.
 *
 * The command's own environment stays the command's: `PATH=/opt/py/bin pytest` becomes
 * `… cg run -- env PATH=/opt/py/bin pytest`, so the assignment reaches pytest and not the node
 * running cg (a changed PATH, XDG_CACHE_HOME or NODE_OPTIONS would otherwise find another cg, stash
 * in another store or crash it). An assignment whose value the shell would expand or split
 * differently as an argument (`X=$HOME/a`, `X+=1`, `arr[0]=1`) leaves the command alone.
 *
 * A simple command is wrapped only when it (a) is not part of a pipeline (the agent already shapes
 * that output, and `cmd | grep` must see every line), (b) is not run in the background, (c) sends
 * its output, stdout and stderr, to the agent (`2>&1` and stdin redirections are fine; `> file`,
 * `2>/dev/null` are not), (d) is a real program, not a builtin, keyword, `sudo`, or something
 * interactive or endless, and (e) has a filter. A command string that already calls cg anywhere,
 * holds a heredoc, or uses syntax the reader does not follow is left alone whole.
 */
import { shellQuote } from '../../run/quote.js';
import { type Pipeline, parseShell, type SimpleCommand, type Word, wordValue } from '../../shell/parse.js';
import { interactiveReason, isBuiltin, isPrivileged } from './programs.js';

export interface RewriteOptions {
  /** Whether a cg filter handles this command, given as the filter selector sees it (`pytest -q`). */
  handles(command: string): Promise<boolean>;
  /** The agent's session id, passed on as CG_SESSION so stats group by session. */
  session?: string;
  /** How the rewrite runs cg, as shell words already quoted (default `cg`). */
  invocation?: string;
  /** Variables for cg itself (`CG_READER=model`), set in front of the invocation. */
  cgEnv?: Readonly<Record<string, string>>;
}

export type Decision =
  | {
      kind: 'rewrite';
      command: string;
      /** The commands that were wrapped, as the filters saw them. */
      wrapped: string[];
      /**
       * Every simple command of the original as the argv its program receives (assignments left
       * out), or undefined when a word's value depends on the shell's expansions.
       */
      segments: string[][] | undefined;
      /** The argv in front of each wrapped command after the rewrite (cg's own words). */
      wrapper: string[][];
    }
  | { kind: 'leave'; reason: string };

/** Commands longer than this are left alone: no agent writes them by hand, and reading them costs. */
const MAX_COMMAND_CHARS = 16_384;
/** Session ids are short (UUIDs); anything else is not passed on. */
const SESSION_RE = /^[A-Za-z0-9._:-]{1,128}$/;
const ASSIGNMENT_RE = /^[A-Za-z_][A-Za-z0-9_]*\+?=/;
/** `arr[0]=1`: bash takes it as an assignment, `env` and exec would not. */
const ARRAY_ASSIGNMENT_RE = /^[A-Za-z_][A-Za-z0-9_]*\[/;
const ENV_NAME_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;
const HEREDOC_RE = /(?:^|[^<])<<(?!<)/;

export async function decideRewrite(command: string, opts: RewriteOptions): Promise<Decision> {
  if (!command.trim()) return leave('empty command');
  if (command.length > MAX_COMMAND_CHARS) return leave('command too long to analyse');
  // Checked on the raw text: a heredoc inside $( … ) would otherwise be read as ordinary lines.
  if (HEREDOC_RE.test(command)) return leave('heredoc');
  const parsed = parseShell(command);
  if (!parsed.ok) return leave(parsed.reason);
  if (parsed.pipelines.some((p) => p.commands.some(callsCg))) return leave('already goes through cg');

  const inserts: { at: number; selector: string; assignments: number }[] = [];
  let firstReason: string | undefined;
  for (const pipeline of parsed.pipelines) {
    const candidate = candidateOf(pipeline);
    if ('reason' in candidate) {
      firstReason ??= candidate.reason;
      continue;
    }
    if (!(await opts.handles(candidate.selector))) {
      firstReason ??= `no cg filter for "${candidate.selector}"`;
      continue;
    }
    inserts.push(candidate);
  }
  if (inserts.length === 0) return leave(firstReason ?? 'nothing to wrap');

  const session = opts.session !== undefined && SESSION_RE.test(opts.session) ? opts.session : undefined;
  const cgEnv = { ...(session ? { CG_SESSION: session } : {}), ...opts.cgEnv };
  const vars = Object.entries(cgEnv)
    .map(([k, v]) => `${k}=${shellQuote(v)} `)
    .join('');
  const invocation = opts.invocation ?? 'cg';
  let out = command;
  for (const { at, assignments } of [...inserts].sort((a, b) => b.at - a.at)) {
    out = `${out.slice(0, at)}${vars}${invocation} run -- ${assignments > 0 ? 'env ' : ''}${out.slice(at)}`;
  }
  const words = parseShell(`${invocation} run --`);
  const base = words.ok ? (words.pipelines[0]?.commands[0]?.words.map(wordValue) ?? []) : [];
  const wrapper = inserts.map((i) => [...(base as string[]), ...(i.assignments > 0 ? ['env'] : [])]);
  return {
    kind: 'rewrite',
    command: out,
    wrapped: inserts.map((i) => i.selector),
    segments: argvOf(parsed.pipelines),
    wrapper,
  };
}

/** Each simple command's argv after its assignments, or undefined when one cannot be known. */
function argvOf(pipelines: readonly Pipeline[]): string[][] | undefined {
  const out: string[][] = [];
  for (const cmd of pipelines.flatMap((p) => p.commands)) {
    const argv = cmd.words.slice(Math.max(0, programIndex(cmd))).map(wordValue);
    if (argv.some((a) => a === undefined)) return undefined;
    if (argv.length > 0) out.push(argv as string[]);
  }
  return out;
}

/** Why an assignment cannot move behind `env` unchanged, or undefined when it can. */
function assignmentProblem(w: Word): string | undefined {
  const eq = w.text.indexOf('=');
  const name = w.text.slice(0, eq);
  if (!ENV_NAME_RE.test(name)) return `the assignment ${name}= is not a plain variable`;
  const value = wordValue({ ...w, text: w.text.slice(eq + 1) });
  return value === undefined ? `the value of ${name} depends on the shell's expansions` : undefined;
}

function leave(reason: string): Decision {
  return { kind: 'leave', reason };
}

/** The index of the program word (after any `VAR=value` assignments), or -1 when there is none. */
function programIndex(cmd: SimpleCommand): number {
  return cmd.words.findIndex((w) => !ASSIGNMENT_RE.test(w.text));
}

function callsCg(cmd: SimpleCommand): boolean {
  const i = programIndex(cmd);
  const word = i >= 0 ? cmd.words[i]! : undefined;
  return word !== undefined && /(^|\/)cg(\.js)?$/.test(word.text);
}

type Candidate = { at: number; selector: string; assignments: number } | { reason: string };

function candidateOf(pipeline: Pipeline): Candidate {
  if (pipeline.background) return { reason: 'runs in the background' };
  if (pipeline.commands.length > 1)
    return { reason: 'a pipeline: its output is already shaped by the agent' };
  const cmd = pipeline.commands[0]!;
  const redirect = outputRedirect(cmd);
  if (redirect) return { reason: redirect };
  const p = programIndex(cmd);
  if (p < 0) return { reason: 'only variable assignments' };
  if (cmd.words.slice(0, p).some((w) => /^CG_DISABLE=/.test(w.text))) return { reason: 'CG_DISABLE is set' };
  for (const w of cmd.words.slice(0, p)) {
    const problem = assignmentProblem(w);
    if (problem) return { reason: problem };
  }
  const program = cmd.words[p]!;
  if (ARRAY_ASSIGNMENT_RE.test(program.text) && program.text.includes('=')) {
    return { reason: 'an array assignment' };
  }
  if (!program.plain) return { reason: 'the program name is quoted or expanded' };
  const name = program.text.slice(program.text.lastIndexOf('/') + 1);
  if (isBuiltin(name)) return { reason: `${name} is a shell builtin` };
  if (isPrivileged(name)) return { reason: `${name} runs with other privileges` };
  // Arguments with their quotes removed where that is plain to see; good enough for flag checks.
  const args = cmd.words
    .slice(p + 1)
    .map((w) => (w.plain ? w.text : w.text.replace(/^(['"])(.*)\1$/s, '$2')));
  const interactive = interactiveReason(name, args);
  if (interactive) return { reason: interactive };
  return {
    at: cmd.words[0]!.start,
    assignments: p,
    selector: cmd.words
      .slice(p)
      .map((w) => w.text)
      .join(' '),
  };
}

/** Why the command's output does not go (only) to the agent, or undefined when it does. */
function outputRedirect(cmd: SimpleCommand): string | undefined {
  for (const r of cmd.redirects) {
    // stdin: cg run passes it on. Other descriptors (3<file) would not reach the command.
    if ((r.op === '<' || r.op === '<<<' || r.op === '<&') && (r.fd === undefined || r.fd === 0)) continue;
    if (r.op === '>&' && r.fd === 2 && r.target.text === '1') continue; // 2>&1: cg run merges anyway
    if (r.op === '>&' && (r.fd === undefined || r.fd === 1) && r.target.text === '2')
      return 'output sent to stderr';
    return r.fd === 2 ? 'stderr redirected' : 'output redirected to a file';
  }
  return undefined;
}
