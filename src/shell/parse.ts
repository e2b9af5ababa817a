/**
 * A small POSIX-sh/bash reader for the one-line (or few-line) commands agents run: it splits a
 * command string into lists of pipelines of simple commands, with each word's and redirection's
 * byte offsets, so a caller can insert text before a word and leave every other byte as written.
 *
 * It is deliberately partial. Whatever it does not fully understand — heredocs, `( … )` and
 * `{ …; }` groups, `if`/`for`/`while`/`case` and other reserved words, `[[ ]]`, unbalanced quotes —
 * makes it return `{ ok: false, reason }`, and the caller leaves the command alone. Being wrong in
 * that direction only costs a missed compaction; being wrong the other way would change what the
 * agent's command does. Quotes, escapes, `$( … )`, `$(( … ))`, `${ … }`, backticks and `<( … )` are
 * skipped over as parts of words, never looked into: the shell expands them the same way whether or
 * not a `cg run --` sits in front of the command.
 */

export interface Word {
  /** The word as written (quotes and all). */
  text: string;
  start: number;
  end: number;
  /** No quotes, escapes or expansions: `text` is the word's value. */
  plain: boolean;
}

export interface Redirect {
  /** The operator: `>`, `>>`, `>|`, `<`, `<>`, `<<<`, `>&`, `<&`, `&>`, `&>>`. */
  op: string;
  /** The file descriptor written before the operator (`2` in `2>&1`), if any. */
  fd?: number;
  target: Word;
  start: number;
  end: number;
}

export interface SimpleCommand {
  /** Every word, assignments included, in order; redirections are not words. */
  words: Word[];
  redirects: Redirect[];
  start: number;
  end: number;
}

/** `a | b |& c`: one or more simple commands. */
export interface Pipeline {
  commands: SimpleCommand[];
  start: number;
  end: number;
  /** Ended by `&`: runs in the background. */
  background: boolean;
}

export type ParseResult = { ok: true; pipelines: Pipeline[] } | { ok: false; reason: string };

/** Words that start or continue a compound command: their structure is beyond this reader. */
const RESERVED = new Set([
  'if',
  'then',
  'else',
  'elif',
  'fi',
  'do',
  'done',
  'case',
  'esac',
  'while',
  'until',
  'for',
  'in',
  'function',
  'select',
  'time',
  'coproc',
  '{',
  '}',
  '!',
  '[[',
  ']]',
]);

class Unsupported extends Error {}

type Token =
  | { kind: 'word'; word: Word }
  | { kind: 'op'; op: string; start: number; end: number }
  | { kind: 'redirect'; op: string; fd?: number; start: number; end: number };

const META = new Set([' ', '\t', '\n', ';', '&', '|', '(', ')', '<', '>']);
const CONTROL_OPS = ['&&', '||', ';;', ';&', '|&', ';', '&', '|', '(', ')'];
const REDIRECT_OPS = ['&>>', '&>', '<<<', '<<-', '<<', '<>', '<&', '>&', '>>', '>|', '<', '>'];

/** Reads `src` into pipelines, or says why it will not. */
export function parseShell(src: string): ParseResult {
  try {
    return { ok: true, pipelines: parseTokens(tokenize(src)) };
  } catch (err) {
    if (err instanceof Unsupported) return { ok: false, reason: err.message };
    throw err;
  }
}

function tokenize(src: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const ch = src[i]!;
    if (ch === ' ' || ch === '\t' || ch === '\r') {
      i++;
      continue;
    }
    if (ch === '\\' && src[i + 1] === '\n') {
      i += 2; // line continuation
      continue;
    }
    if (ch === '\n') {
      tokens.push({ kind: 'op', op: '\n', start: i, end: i + 1 });
      i++;
      continue;
    }
    if (ch === '#') {
      // A comment runs to the end of the line (only at the start of a word, which this is).
      while (i < src.length && src[i] !== '\n') i++;
      continue;
    }
    // `<(…)` and `>(…)` are process substitutions: parts of a word, not redirections.
    if ((ch === '<' || ch === '>') && src[i + 1] === '(') {
      const word = readWord(src, i);
      tokens.push({ kind: 'word', word });
      i = word.end;
      continue;
    }
    const io = /^(\d+)(?=[<>])/.exec(src.slice(i, i + 12));
    if (io || ch === '<' || ch === '>' || (ch === '&' && src[i + 1] === '>')) {
      const at = i + (io ? io[1]!.length : 0);
      const op = REDIRECT_OPS.find((o) => src.startsWith(o, at));
      if (op) {
        if (op === '<<' || op === '<<-') throw new Unsupported('heredoc');
        tokens.push({
          kind: 'redirect',
          op,
          ...(io ? { fd: Number(io[1]) } : {}),
          start: i,
          end: at + op.length,
        });
        i = at + op.length;
        continue;
      }
    }
    const control = CONTROL_OPS.find((o) => src.startsWith(o, i));
    if (control) {
      tokens.push({ kind: 'op', op: control, start: i, end: i + control.length });
      i += control.length;
      continue;
    }
    const word = readWord(src, i);
    tokens.push({ kind: 'word', word });
    i = word.end;
  }
  return tokens;
}

/** One word from `start`: up to unquoted whitespace or a shell metacharacter. */
function readWord(src: string, start: number): Word {
  let i = start;
  let plain = true;
  while (i < src.length) {
    const ch = src[i]!;
    if ((ch === '<' || ch === '>') && i === start && src[i + 1] === '(') {
      plain = false;
      i = skipParens(src, i + 2);
      continue;
    }
    if (META.has(ch)) break;
    switch (ch) {
      case '\\':
        plain = false;
        if (i + 1 >= src.length) throw new Unsupported('a trailing backslash');
        i += 2;
        break;
      case "'":
        plain = false;
        i = skipSingle(src, i + 1);
        break;
      case '"':
        plain = false;
        i = skipDouble(src, i + 1);
        break;
      case '`':
        plain = false;
        i = skipBacktick(src, i + 1);
        break;
      case '$':
        plain = false;
        i = skipDollar(src, i);
        break;
      default:
        i++;
    }
  }
  return { text: src.slice(start, i), start, end: i, plain };
}

function skipSingle(src: string, i: number): number {
  const close = src.indexOf("'", i);
  if (close === -1) throw new Unsupported('an unterminated quote');
  return close + 1;
}

function skipDouble(src: string, i: number): number {
  while (i < src.length) {
    const ch = src[i]!;
    if (ch === '"') return i + 1;
    if (ch === '\\') i += 2;
    else if (ch === '`') i = skipBacktick(src, i + 1);
    else if (ch === '$') i = skipDollar(src, i);
    else i++;
  }
  throw new Unsupported('an unterminated quote');
}

function skipBacktick(src: string, i: number): number {
  while (i < src.length) {
    const ch = src[i]!;
    if (ch === '`') return i + 1;
    i += ch === '\\' ? 2 : 1;
  }
  throw new Unsupported('an unterminated backquote');
}

/** At a `$`: skips `$'…'`, `$(…)`, `$((…))`, `${…}` or a plain `$name`; returns the index after. */
function skipDollar(src: string, i: number): number {
  const next = src[i + 1];
  if (next === '(') return skipParens(src, i + 2);
  if (next === '{') return skipBraces(src, i + 2);
  if (next === "'") {
    // ANSI-C quoting: like single quotes, but a backslash escapes the next character.
    for (let j = i + 2; j < src.length; j++) {
      if (src[j] === '\\') j++;
      else if (src[j] === "'") return j + 1;
    }
    throw new Unsupported('an unterminated quote');
  }
  return i + 1;
}

/** Inside `$(`, `<(` or `$((`: to the matching `)`, stepping over quotes and nested expansions. */
function skipParens(src: string, i: number): number {
  return skipNested(src, i, '(', ')', 'an unterminated $( … )', true);
}

/** Inside `${`: to the matching `}`, likewise. */
function skipBraces(src: string, i: number): number {
  return skipNested(src, i, '{', '}', 'an unterminated parameter expansion', false);
}

function skipNested(
  src: string,
  i: number,
  open: string,
  close: string,
  unterminated: string,
  commands: boolean,
): number {
  let depth = 1;
  while (i < src.length) {
    const ch = src[i]!;
    if (ch === open) depth++;
    else if (ch === close) {
      depth--;
      if (depth === 0) return i + 1;
    } else if (ch === '\\') {
      i += 2;
      continue;
    } else if (ch === "'") {
      i = skipSingle(src, i + 1);
      continue;
    } else if (ch === '"') {
      i = skipDouble(src, i + 1);
      continue;
    } else if (ch === '`') {
      i = skipBacktick(src, i + 1);
      continue;
    } else if (ch === '$') {
      i = skipDollar(src, i);
      continue;
    } else if (commands && ch === '#' && /[\s;(]/.test(src[i - 1] ?? ' ')) {
      // A comment inside a substitution could hide a `)`: too subtle to follow.
      throw new Unsupported('a comment inside a command substitution');
    }
    i++;
  }
  throw new Unsupported(unterminated);
}

function parseTokens(tokens: readonly Token[]): Pipeline[] {
  const pipelines: Pipeline[] = [];
  let commands: SimpleCommand[] = [];
  let current: SimpleCommand | undefined;
  /** The last operator needs a command after it (`&&`, `||`, `|`). */
  let dangling = false;

  const endCommand = () => {
    if (current) commands.push(current);
    current = undefined;
  };
  const endPipeline = (background: boolean) => {
    endCommand();
    if (commands.length > 0) {
      pipelines.push({
        commands,
        start: commands[0]!.start,
        end: commands[commands.length - 1]!.end,
        background,
      });
    }
    commands = [];
  };

  for (let t = 0; t < tokens.length; t++) {
    const tok = tokens[t]!;
    if (tok.kind === 'word') {
      if (!current) {
        if (RESERVED.has(tok.word.text)) throw new Unsupported(`the shell keyword "${tok.word.text}"`);
        current = { words: [], redirects: [], start: tok.word.start, end: tok.word.end };
      } else if (current.words.length === 0 && RESERVED.has(tok.word.text)) {
        throw new Unsupported(`the shell keyword "${tok.word.text}"`);
      }
      current.words.push(tok.word);
      current.end = tok.word.end;
      dangling = false;
      continue;
    }
    if (tok.kind === 'redirect') {
      const next = tokens[t + 1];
      if (next?.kind !== 'word') throw new Unsupported('a redirection without a target');
      t++;
      current ??= { words: [], redirects: [], start: tok.start, end: tok.end };
      current.redirects.push({
        op: tok.op,
        ...(tok.fd !== undefined ? { fd: tok.fd } : {}),
        target: next.word,
        start: tok.start,
        end: next.word.end,
      });
      current.end = next.word.end;
      dangling = false;
      continue;
    }
    switch (tok.op) {
      case '|':
      case '|&':
        if (!current) throw new Unsupported('a pipe with nothing before it');
        endCommand();
        dangling = true;
        break;
      case '&&':
      case '||':
        if (!current) throw new Unsupported(`"${tok.op}" with nothing before it`);
        endPipeline(false);
        dangling = true;
        break;
      case ';':
      case '\n':
        if (dangling && tok.op === ';') throw new Unsupported('";" where a command belongs');
        if (!dangling) endPipeline(false);
        break;
      case '&':
        if (!current) throw new Unsupported('"&" with nothing before it');
        endPipeline(true);
        break;
      default:
        // ( ) ;; ;& — subshells, groups and case arms.
        throw new Unsupported(tok.op === '(' || tok.op === ')' ? 'a ( … ) subshell' : `"${tok.op}"`);
    }
  }
  if (dangling) throw new Unsupported('a command that ends in an operator');
  endPipeline(false);
  return pipelines;
}

/**
 * A word's value once the shell has removed its quotes and escapes, when that value does not depend
 * on the shell's state: undefined for a word with an expansion (`$x`, `$( … )`, backticks), a glob
 * character, a brace or a leading tilde outside quotes — the shell would expand those.
 */
export function wordValue(w: Word): string | undefined {
  const s = w.text;
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === "'") {
      const end = s.indexOf("'", i + 1);
      if (end < 0) return undefined;
      out += s.slice(i + 1, end);
      i = end;
    } else if (c === '"') {
      for (i++; i < s.length && s[i] !== '"'; i++) {
        const d = s[i]!;
        if (d === '$' || d === '`') return undefined;
        if (d === '\\' && i + 1 < s.length && '"\\$`\n'.includes(s[i + 1]!)) i++;
        out += s[i]!;
      }
      if (i >= s.length) return undefined;
    } else if (c === '\\') {
      if (i + 1 >= s.length) return undefined;
      out += s[++i]!;
    } else if ('$`*?[{}'.includes(c) || (c === '~' && i === 0)) {
      return undefined;
    } else {
      out += c;
    }
  }
  return out;
}
