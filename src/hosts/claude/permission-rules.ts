/**
 * Claude Code's permission rules, as far as cg can prove them, for one Bash command: given the
 * rules of every settings layer and the session's permission mode, the verdict Claude Code reaches
 * — `allow`, `ask`, `deny` — or `unruled` when no rule settles it (then Claude Code's own
 * heuristics decide: read-only commands run, others ask) or when cg cannot be sure.
 *
 * The reading is lopsided on purpose. An `allow` is claimed only when it is certain: every simple
 * command of the script (or the whole script, for an exact rule) is matched by an allow rule as
 * Claude Code matches it — `Bash(x)` the exact text, `Bash(x:*)` the text or `x ` followed by
 * anything, `Bash(x *)` a glob — over the command exactly as written, with no expansion, glob,
 * redirection to a file or syntax the shell reader does not follow. A `deny` or `ask` is assumed as
 * soon as a rule *might* match: its first word appears as a word anywhere in the script, a
 * file rule's name (`Read(./.env)`) appears in it, or the rule names all of Bash. So a verdict of
 * `allow` here is one Claude Code gives too; anything else means "do not touch".
 *
 * Modes: `default`, `acceptEdits` and `dontAsk` let the rules decide; `bypassPermissions` allows
 * whatever no deny or ask rule might match; `plan`, `auto` (a classifier decides) and any mode
 * cg does not know are `unruled`. Pure: no file is read here (permission-layers.ts reads them).
 */
import { type Pipeline, parseShell, type SimpleCommand, wordValue } from '../../shell/parse.js';

export type Verdict = 'allow' | 'ask' | 'deny' | 'unruled';

export interface Evaluation {
  verdict: Verdict;
  /** Why, in a few words (the rule that decided, or what cg could not prove). */
  why: string;
}

/** The permission rules of one settings layer, as the user wrote them. */
export interface RuleSet {
  allow: readonly string[];
  ask: readonly string[];
  deny: readonly string[];
}

/** Tools whose file rules Claude Code may apply to a Bash command that reads or writes the file. */
const FILE_TOOLS = new Set(['Read', 'Edit', 'Write', 'MultiEdit', 'NotebookEdit', 'WebFetch']);
/** Modes in which Claude Code's rules decide a Bash call. */
const RULED_MODES = new Set(['default', 'acceptEdits', 'dontAsk']);

/** `Bash(git log:*)` → {tool: 'Bash', content: 'git log:*'}; `Bash` → {tool: 'Bash'}. */
export function parseRule(rule: string): { tool: string; content?: string } {
  const m = /^([^()]+)\((.*)\)$/s.exec(rule.trim());
  if (!m) return { tool: rule.trim() };
  return { tool: m[1]!.trim(), content: m[2]! };
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Whether an allow rule's content matches this command text exactly as Claude Code matches it. */
export function allowMatches(content: string, text: string): boolean {
  if (content.endsWith(':*')) {
    const prefix = content.slice(0, -2);
    return prefix !== '' && !prefix.includes('*') && (text === prefix || text.startsWith(`${prefix} `));
  }
  if (!content.includes('*')) return text === content;
  const re = new RegExp(`^${content.split('*').map(escapeRe).join('.*')}$`, 's');
  return re.test(text);
}

/** Whether a deny or ask rule could match anything in the script (see the header). */
export function mightMatch(rule: string, script: string): boolean {
  const { tool, content } = parseRule(rule);
  if (tool === 'Bash') {
    const head = content?.replace(/:\*$/, '').trim().split(/\s+/)[0] ?? '';
    if (head === '' || head.includes('*')) return true;
    return new RegExp(`(^|[^A-Za-z0-9_.+-])${escapeRe(head)}($|[^A-Za-z0-9_.+-])`).test(script);
  }
  if (!FILE_TOOLS.has(tool)) return false;
  if (content === undefined) return true;
  const literal = content
    .replace(/^domain:/, '')
    .split(/[*?{}[\]]/)
    .join('/')
    .split('/');
  const name = literal.filter((p) => p !== '' && p !== '.' && p !== '..' && p !== '~').at(-1);
  return name === undefined || script.includes(name);
}

/** The command text a rule sees for one simple command: its bytes from first word to last. */
function commandText(script: string, cmd: SimpleCommand): string {
  return script.slice(cmd.start, cmd.end).trim();
}

/** Why cg cannot read this simple command the way Claude Code's matcher would, or undefined. */
function unprovable(cmd: SimpleCommand): string | undefined {
  if (cmd.words.some((w) => wordValue(w) === undefined)) return 'a word the shell expands';
  if (cmd.words[0] && /^[A-Za-z_][A-Za-z0-9_]*\+?=/.test(cmd.words[0].text))
    return 'an environment assignment';
  for (const r of cmd.redirects) {
    if (r.op === '>&' && (r.target.text === '1' || r.target.text === '2')) continue;
    if (r.op === '<') continue;
    return 'a redirection';
  }
  return undefined;
}

function firstMatch(rules: readonly string[], test: (content: string) => boolean): string | undefined {
  return rules.find((r) => {
    const { tool, content } = parseRule(r);
    return tool === 'Bash' && content !== undefined && content !== '' && test(content);
  });
}

/** Claude Code's verdict on a Bash command, under the merged rules of every layer and the mode. */
export function evaluateBash(script: string, rules: RuleSet, mode: string): Evaluation {
  const deny = rules.deny.find((r) => mightMatch(r, script));
  if (deny) return { verdict: 'deny', why: `the deny rule ${deny} may match` };
  const ask = rules.ask.find((r) => mightMatch(r, script));
  if (ask) return { verdict: 'ask', why: `the ask rule ${ask} may match` };
  if (mode === 'bypassPermissions') return { verdict: 'allow', why: 'bypassPermissions mode' };
  if (!RULED_MODES.has(mode)) return { verdict: 'unruled', why: `${mode || 'an unknown'} mode` };

  const whole = firstMatch(rules.allow, (c) => !c.includes('*') && c === script);
  if (whole) return { verdict: 'allow', why: `the allow rule ${whole}` };
  const parsed = parseShell(script);
  if (!parsed.ok) return { verdict: 'unruled', why: parsed.reason };
  if (parsed.pipelines.some((p: Pipeline) => p.background))
    return { verdict: 'unruled', why: 'a background job' };
  const commands = parsed.pipelines.flatMap((p: Pipeline) => p.commands);
  if (commands.length === 0) return { verdict: 'unruled', why: 'no command' };
  const used: string[] = [];
  for (const cmd of commands) {
    const problem = unprovable(cmd);
    if (problem) return { verdict: 'unruled', why: problem };
    const text = commandText(script, cmd);
    const rule = firstMatch(rules.allow, (c) => allowMatches(c, text));
    if (!rule) return { verdict: 'unruled', why: `no allow rule for "${text}"` };
    used.push(rule);
  }
  return {
    verdict: 'allow',
    why: `the allow rule${used.length > 1 ? 's' : ''} ${[...new Set(used)].join(', ')}`,
  };
}
