/**
 * Claude Code, as cg plugs into it: a PostToolUse hook whose answer
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
 * replacement: cg cannot shorten failing commands in Claude Code.
 */
import { isAbsolute } from 'node:path';
import { languageOfPath } from '../../code/languages.js';
import { type Host, isObject, type Replaceable, type ToolShape } from '../host.js';

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
    const { stdout, stderr } = response;
    if (typeof stdout !== 'string' || (stderr !== undefined && typeof stderr !== 'string')) return undefined;
    const persisted = response.persistedOutputPath;
    const full = typeof persisted === 'string' && isAbsolute(persisted) ? files(persisted) : undefined;
    if (typeof persisted === 'string' && full === undefined) return undefined; // only a preview to go on
    const command = typeof input.command === 'string' ? input.command : undefined;
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
    if (!isObject(response) || response.type !== 'text' || !isObject(response.file)) return undefined;
    const file = response.file;
    if (typeof file.content !== 'string' || typeof file.filePath !== 'string') return undefined;
    const start = typeof file.startLine === 'number' && file.startLine > 0 ? file.startLine : 1;
    const lang = languageOfPath(file.filePath)?.name;
    const original = file.content;
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
    if (typeof response.content === 'string' && response.content !== '') {
      return {
        texts: [{ text: response.content }],
        rebuild: ([content]) => ({ ...response, content, numLines: content!.split('\n').length }),
      };
    }
    const names = response.filenames;
    if (!Array.isArray(names) || names.length === 0 || !names.every((n) => typeof n === 'string')) {
      return undefined;
    }
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
    if (!isObject(response) || typeof response.result !== 'string') return undefined;
    return {
      texts: [{ text: response.result }],
      rebuild: ([result]) => ({ ...response, result }),
    };
  },
  answer: postToolUse('updatedToolOutput'),
};

/** MCP tools report a list of content blocks (or `{content: [...]}`); each text block is one output. */
const MCP: ToolShape = {
  tools: ['mcp__*'],
  read(response): Replaceable | undefined {
    const blocks = Array.isArray(response)
      ? response
      : isObject(response) && Array.isArray(response.content)
        ? response.content
        : undefined;
    if (!blocks) return undefined;
    const at: number[] = [];
    blocks.forEach((b, i) => {
      if (isObject(b) && b.type === 'text' && typeof b.text === 'string') at.push(i);
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

export const CLAUDE: Host = {
  name: 'claude',
  title: 'Claude Code',
  settingsFile(scope, env, cwd, home) {
    const dir = scope === 'project' ? `${cwd}/.claude` : env.CLAUDE_CONFIG_DIR || `${home}/.claude`;
    return `${dir}/settings.json`;
  },
  entries: [
    {
      event: 'PostToolUse',
      matcher: 'Bash|Read|Grep|Glob|WebFetch|mcp__.*',
      args: ['claude'],
      timeout: 10,
    },
  ],
  legacyEvents: ['PreToolUse'],
  version: {
    bin: 'claude',
    args: ['--version'],
    parse: (out) => /(\d+\.\d+\.\d+)/.exec(out)?.[1],
    minimum: '2.1.233',
    why: 'updatedToolOutput for built-in tools (Bash, Read, …) works from Claude Code 2.1.233',
  },
  probe: {
    payload: {
      hook_event_name: 'PostToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'seq 1 3000' },
      tool_response: {
        stdout: Array.from({ length: 3000 }, (_, i) => String(i + 1)).join('\n'),
        stderr: '',
        interrupted: false,
        isImage: false,
      },
    },
    check(answer) {
      const out = isObject(answer) && isObject(answer.hookSpecificOutput) ? answer.hookSpecificOutput : {};
      if (out.hookEventName !== 'PostToolUse') return 'the answer names no PostToolUse hookEventName';
      const updated = out.updatedToolOutput;
      if (!isObject(updated) || typeof updated.stdout !== 'string') {
        return 'the answer has no updatedToolOutput {stdout, …} (Claude Code ignores a plain string)';
      }
      return updated.stdout.includes('<<cg:') ? undefined : 'the replaced output carries no marker';
    },
  },
  afterInstall: [
    'it applies to Claude Code sessions started from now on; check it with /hooks',
    'failing commands (non-zero exit) reach the model unchanged: Claude Code lets no hook replace them; `cg wrap claude` reaches them',
  ],
  hookGaps: [
    'a failing Bash run (non-zero exit) reaches the model whole in hooks mode: Claude Code sends it to PostToolUseFailure, which accepts no replacement; `cg wrap claude` (or `cg proxy`) shortens it',
  ],
  // Claude Code 2.1.332 sets CLAUDECODE=1 in its Bash tool's shell (documented, and seen in a real
  // Bash call with CLAUDE_CODE_ENTRYPOINT, CLAUDE_CODE_SESSION_ID and AI_AGENT beside it).
  agentEnv: ['CLAUDECODE', 'CLAUDE_CODE_ENTRYPOINT', 'CLAUDE_CODE_SESSION_ID'],
  mcpAdd: (cg) => `claude mcp add --scope user cg -- ${cg} mcp`,
};
