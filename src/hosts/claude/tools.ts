/**
 * Claude Code's tools whose output cg replaces in its PostToolUse hook (the row is host.ts). The answer
 * `{"hookSpecificOutput":{"hookEventName":"PostToolUse","updatedToolOutput":…}}` replaces what the
 * model reads, after the tool ran exactly as approved — so permission rules, auto-approval and
 * "always allow" suggestions see the command the model wrote, never a cg wrapper.
 *
 * Verified on the 2.1.332 binary (test/clients): the replacement must have the object shape of the
 * tool's own output — a plain string is silently ignored for built-in tools — and is then rendered
 * by the host as usual (Read's content gets the host's `N\t` line numbers, see READ). MCP
 * tools take `updatedMCPToolOutput`, a content-block list. A Bash output over ~30,000 characters
 * reaches the hook as a 30 KB head plus `persistedOutputPath` (the model would read a 2 KB
 * `<persisted-output>` preview); cg compacts the whole file instead and drops the persisted fields
 * so its version is what the model reads — when it fits inline (30,000 characters; a longer
 * replacement is persisted again and previewed, so then the host's own handling stays). A Bash
 * command that exits non-zero fires
 * PostToolUseFailure, which carries only the first ~10,000 characters as `error` and accepts no
 * replacement; cg reaches those through a PreToolUse rewrite to `cg run`, only where Claude Code's
 * own rules allow the command outright (pretool-rewrite.ts).
 */
import { isAbsolute } from 'node:path';
import { languageOfPath } from '../../code/languages.js';
import { arrayAt, isObject, numberAt, objectAt, stringAt, stringsAt } from '../../json/payload.js';
import type { Replaceable, ToolShape } from '../host.js';

/**
 * Claude Code keeps a Bash output up to this many characters inline (BASH_MAX_OUTPUT_LENGTH
 * changes it); a longer one — a replacement too — goes to a file and the model reads a 2 KB preview.
 */
const BASH_INLINE_CHARS = 30_000;

/** Where the model reads Bash output: stdout, then stderr on its own line. */
function bashText(stdout: string, stderr: string): string {
  return stdout && stderr ? `${stdout}\n${stderr}` : stdout || stderr;
}

const postToolUse =
  (key: 'updatedToolOutput' | 'updatedMCPToolOutput') =>
  (updated: unknown): unknown => ({
    hookSpecificOutput: { hookEventName: 'PostToolUse', [key]: updated },
  });

const BASH: ToolShape = {
  tools: ['Bash'],
  read(response, input, files, env): Replaceable | undefined {
    if (!isObject(response) || response.isImage === true) return undefined;
    const stdout = stringAt(response, 'stdout');
    const stderr = stringAt(response, 'stderr');
    if (stdout === undefined || (response.stderr !== undefined && stderr === undefined)) return undefined;
    const persisted = stringAt(response, 'persistedOutputPath');
    const full = persisted !== undefined && isAbsolute(persisted) ? files(persisted) : undefined;
    if (persisted !== undefined && full === undefined) return undefined; // only a preview to go on
    const command = stringAt(input, 'command');
    const text = full ?? bashText(stdout, stderr ?? '');
    return {
      texts: [{ text, ...(command !== undefined ? { command } : {}) }],
      maxChars: Number(env.BASH_MAX_OUTPUT_LENGTH) || BASH_INLINE_CHARS,
      rebuild: ([out]) => {
        const { persistedOutputPath: _p, persistedOutputSize: _s, ...rest } = response;
        return { ...rest, stdout: out, stderr: '' };
      },
    };
  },
  answer: postToolUse('updatedToolOutput'),
};

/**
 * Claude Code numbers a Read's lines itself, `N\t` counting up from `startLine` with no way to skip
 * (checked in the 2.1.332 binary: the text shape's renderer numbers every line of `content` in
 * turn; the other shapes — image, notebook, pdf, parts — are not a source file). So cg compacts the
 * file as the model reads it, each line with its own number (the stash holds the numbered read
 * byte for byte), then lays the compacted lines back at their own line numbers without theirs: a
 * line the outline cut is an empty line, and a note of the outline (an elision, the marker) takes
 * the next free one. The model sees every kept line once, with its true number, and the read's
 * first line is never cut.
 */
function numbered(content: string, startLine: number): string {
  return content
    .split('\n')
    .map((line, i) => `${startLine + i}\t${line}`)
    .join('\n');
}

/** The compacted numbered read laid out for the host's own numbering (see above). */
export function atTrueLines(compacted: string, original: string, startLine: number): string {
  const lines = original.split('\n');
  const slots: (string | undefined)[] = [];
  const late: string[] = [];
  let at = -1;
  const notes: { after: number; text: string }[] = [];
  for (const line of compacted.split('\n')) {
    const m = /^(\d+)\t/.exec(line);
    const i = m ? Number(m[1]) - startLine : -1;
    if (m && i >= 0 && i < lines.length && slots[i] === undefined && i > at) {
      slots[i] = line.slice(m[0].length);
      at = i;
    } else notes.push({ after: at, text: line });
  }
  slots.length = Math.max(slots.length, 1);
  if (slots[0] === undefined || /^\s*(\.\.\.|\u2026)/.test(slots[0])) {
    // The read's first line stays: an elision the outline put there moves to the next free line.
    if (slots[0] !== undefined) notes.unshift({ after: 0, text: slots[0] });
    slots[0] = lines[0];
  }
  // A note takes the first empty line of the gap right after the line it followed; with no gap
  // there, it goes after the last line.
  const byNote = new Set<number>();
  for (const n of notes) {
    let i = n.after + 1;
    while (byNote.has(i)) i++;
    if (i < slots.length && slots[i] === undefined) {
      slots[i] = n.text;
      byNote.add(i);
    } else late.push(n.text);
  }
  return [...slots.map((s) => s ?? ''), ...late].join('\n');
}

const READ: ToolShape = {
  tools: ['Read'],
  read(response): Replaceable | undefined {
    const file = objectAt(response, 'file');
    const original = stringAt(file, 'content');
    const path = stringAt(file, 'filePath');
    if (!isObject(response) || response.type !== 'text' || !file) return undefined;
    if (original === undefined || path === undefined) return undefined;
    const line = numberAt(file, 'startLine');
    const start = line !== undefined && line > 0 ? line : 1;
    const lang = languageOfPath(path)?.name;
    return {
      texts: [{ text: numbered(original, start), preset: 'coding', ...(lang ? { lang } : {}) }],
      rebuild: ([compacted]) => {
        const content = atTrueLines(compacted!, original, start);
        return {
          ...response,
          file: { ...file, content, startLine: start, numLines: content.split('\n').length },
        };
      },
    };
  },
  answer: postToolUse('updatedToolOutput'),
};

/** Grep's content mode and the file lists of Grep and Glob: the text the host prints, line per entry. */
const SEARCH: ToolShape = {
  tools: ['Grep', 'Glob'],
  read(response): Replaceable | undefined {
    if (!isObject(response)) return undefined;
    const content = stringAt(response, 'content');
    if (content !== undefined && content !== '') {
      return {
        texts: [{ text: content }],
        rebuild: ([content]) => ({ ...response, content, numLines: content!.split('\n').length }),
      };
    }
    const names = stringsAt(response, 'filenames');
    if (names === undefined || names.length === 0) return undefined;
    return {
      texts: [{ text: names.join('\n') }],
      rebuild: ([list]) => ({ ...response, filenames: list!.split('\n') }),
    };
  },
  answer: postToolUse('updatedToolOutput'),
};

const WEB_FETCH: ToolShape = {
  tools: ['WebFetch'],
  read(response): Replaceable | undefined {
    const text = stringAt(response, 'result');
    if (!isObject(response) || text === undefined) return undefined;
    return {
      texts: [{ text }],
      rebuild: ([result]) => ({ ...response, result }),
    };
  },
  answer: postToolUse('updatedToolOutput'),
};

/** MCP tools report a list of content blocks (or `{content: [...]}`); each text block is one output. */
const MCP: ToolShape = {
  tools: ['mcp__*'],
  read(response): Replaceable | undefined {
    const blocks = Array.isArray(response) ? (response as readonly unknown[]) : arrayAt(response, 'content');
    if (!blocks) return undefined;
    const at: number[] = [];
    blocks.forEach((b, i) => {
      if (stringAt(b, 'type') === 'text' && stringAt(b, 'text') !== undefined) at.push(i);
    });
    if (at.length === 0) return undefined;
    return {
      texts: at.map((i) => ({ text: (blocks[i] as { text: string }).text })),
      rebuild: (texts) => {
        const out = blocks.map((b) => b);
        at.forEach((i, j) => {
          out[i] = { ...(blocks[i] as object), text: texts[j] };
        });
        return out;
      },
    };
  },
  answer: postToolUse('updatedMCPToolOutput'),
};

/** Tools cg replaces the output of, tried in order. */
export const CLAUDE_TOOLS: readonly ToolShape[] = [BASH, READ, SEARCH, WEB_FETCH, MCP];
