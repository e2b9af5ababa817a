import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLAUDE_LIMIT } from '../../../../src/hosts/claude/limits.js';
import { CLAUDE_TOOLS } from '../../../../src/hosts/claude/tools.js';
import { GEMINI_TOOLS } from '../../../../src/hosts/gemini/tools.js';
import { readToolResult, replacementAnswer } from '../../../../src/hosts/hook/output.js';
import { hostView } from '../../../../src/hosts/limits.js';
import { createFsStore } from '../../../../src/store/fs-store.js';
import { createTokens } from '../../../../src/tokens.js';
import { tempDir } from '../../../helpers.js';

const lines = (n: number, f: (i: number) => string = (i) => `line ${i + 1} of the output`) =>
  Array.from({ length: n }, (_, i) => f(i)).join('\n');

function world() {
  const dir = tempDir('cg-hook-out-');
  const env: Record<string, string> = {
    CG_STORE_DIR: join(dir, 'store'),
    CG_STATE_DIR: join(dir, 'state'),
    XDG_CONFIG_HOME: join(dir, 'config'),
    HOME: dir,
  };
  const store = createFsStore({ dir: env.CG_STORE_DIR!, ttlDays: 1, maxBytes: 1 << 30, compress: false });
  return { dir, env, store };
}

async function answer(
  host: 'claude' | 'gemini',
  payload: Record<string, unknown>,
  w: { dir: string; env: Record<string, string>; store: ReturnType<typeof createFsStore> } = world(),
  extra = {},
) {
  const result = readToolResult(payload)!;
  const text = await replacementAnswer(host === 'claude' ? CLAUDE_TOOLS : GEMINI_TOOLS, result, {
    cwd: w.dir,
    env: w.env,
    ...extra,
  });
  return { json: text === undefined ? undefined : JSON.parse(text), w };
}

const bash = (stdout: string, extra: Record<string, unknown> = {}, command = 'seq 3000') => ({
  hook_event_name: 'PostToolUse',
  tool_name: 'Bash',
  tool_input: { command },
  tool_response: {
    stdout,
    stderr: '',
    interrupted: false,
    isImage: false,
    noOutputExpected: false,
    ...extra,
  },
});

const marker = (s: string) => /<<cg:([0-9a-f]{16})>>/.exec(s)?.[1];

describe('Claude Code PostToolUse replacement', () => {
  it('hands back Bash output in the object shape Claude Code takes, with a marker that expands to the output', async () => {
    const out = lines(3000);
    const { json, w } = await answer('claude', bash(out));
    const updated = json.hookSpecificOutput.updatedToolOutput;
    expect(json.hookSpecificOutput.hookEventName).toBe('PostToolUse');
    expect(Object.keys(updated).sort()).toEqual([
      'interrupted',
      'isImage',
      'noOutputExpected',
      'stderr',
      'stdout',
    ]);
    expect(updated.stdout.length).toBeLessThan(out.length / 10);
    expect((await w.store.get(marker(updated.stdout)!))!.toString('utf8')).toBe(out);
  });

  it('compacts the whole persisted output, not the preview, and drops the persisted fields', async () => {
    const w = world();
    const full = lines(5000);
    const file = join(w.dir, 'persisted.txt');
    writeFileSync(file, full);
    const { json } = await answer(
      'claude',
      bash(full.slice(0, 30_000), { persistedOutputPath: file, persistedOutputSize: full.length }),
      w,
    );
    const updated = json.hookSpecificOutput.updatedToolOutput;
    expect(updated.persistedOutputPath).toBeUndefined();
    expect(updated.persistedOutputSize).toBeUndefined();
    expect(updated.stdout).toContain('line 5000 of the output');
    expect((await w.store.get(marker(updated.stdout)!))!.toString('utf8')).toBe(full);
  });

  it('never hands Claude Code more of a 300 KB log than its own 2 KB preview would have shown', async () => {
    const w = world();
    // Prose-like lines (letters only) that no template folds: only a cut brings it to the preview.
    const word = (n: number) =>
      Array.from({ length: 3 + (n % 5) }, (_, k) => String.fromCharCode(97 + ((n * 7 + k * 13) % 26))).join(
        '',
      );
    const text = (i: number) => Array.from({ length: 8 }, (_, k) => word(i * 31 + k * 17)).join(' ');
    const full = `${lines(4000, (i) => (i % 997 === 500 ? `ERROR worker ${text(i)} crashed` : `note ${text(i)}`))}\nshutdown: 4000 requests, 4 errors\n`;
    const file = join(w.dir, 'persisted.txt');
    writeFileSync(file, full);
    const { json } = await answer(
      'claude',
      bash(
        full.slice(0, 30_000),
        { persistedOutputPath: file, persistedOutputSize: full.length },
        'cat big.log',
      ),
      w,
      { host: 'claude' },
    );
    const stdout: string = json.hookSpecificOutput.updatedToolOutput.stdout;
    const tokens = createTokens('o200k');
    const preview = await tokens.count(hostView(CLAUDE_LIMIT, full));
    expect(await tokens.count(stdout)).toBeLessThanOrEqual(preview);
    expect(stdout).toContain('shutdown: 4000 requests, 4 errors');
    expect(stdout).toMatch(/ERROR worker/);
    expect((await w.store.get(marker(stdout)!))!.toString('utf8')).toBe(full);
  });

  it("leaves Claude Code's own handling when cg's version would still be over its inline limit", async () => {
    const w = world();
    const { json } = await answer('claude', bash(lines(3000)), {
      ...w,
      env: { ...w.env, BASH_MAX_OUTPUT_LENGTH: '100' },
    });
    expect(json).toBeUndefined();
  });

  it('leaves small outputs, images, cg expand output and a persisted file it cannot read alone', async () => {
    expect((await answer('claude', bash('a\nb\n'))).json).toBeUndefined();
    expect((await answer('claude', bash(lines(3000), { isImage: true }))).json).toBeUndefined();
    expect(
      (await answer('claude', bash(lines(3000), {}, 'cg expand 0123456789abcdef'))).json,
    ).toBeUndefined();
    expect(
      (await answer('claude', bash(lines(3000), { persistedOutputPath: '/nonexistent/x.txt' }))).json,
    ).toBeUndefined();
  });

  it("replaces a Read's content inside Read's own file object, each kept line at its own line number", async () => {
    const code = `"""Rules."""\n${lines(
      300,
      (i) => `def rule_${i}(x):\n    total = x * ${i}\n    total += ${i}\n    return total\n`,
    )}`;
    const { json, w } = await answer('claude', {
      hook_event_name: 'PostToolUse',
      tool_name: 'Read',
      tool_input: { file_path: '/p/src/rules.py' },
      tool_response: {
        type: 'text',
        file: { filePath: '/p/src/rules.py', content: code, numLines: 1501, startLine: 1, totalLines: 1501 },
      },
    });
    const updated = json.hookSpecificOutput.updatedToolOutput;
    expect(updated.type).toBe('text');
    expect(updated.file.filePath).toBe('/p/src/rules.py');
    expect(updated.file.content.length).toBeLessThan(code.length * 0.75);
    expect(updated.file.numLines).toBe(updated.file.content.split('\n').length);
    expect(updated.file.startLine).toBe(1);
    // Claude Code numbers the content from startLine: each kept line must sit at its own number,
    // and carry no number of cg's (the model would read two).
    const shown = updated.file.content.split('\n');
    const original = code.split('\n');
    expect(shown[0]).toBe('"""Rules."""');
    const at = shown.findIndex((l: string) => l.includes('def rule_7('));
    expect(at + 1).toBe(original.findIndex((l) => l.startsWith('def rule_7(')) + 1);
    expect(shown[at]).toBe('def rule_7(x):');
    expect(shown.some((l: string) => /^\d+\t/.test(l))).toBe(false);
    for (const [i, l] of shown.entries())
      if (l !== '' && !l.includes('<<cg:') && !/^\s*(\.\.\.|…)/.test(l)) expect(l).toBe(original[i]);
    // The stash is the read as the model would have seen it: every line with its number.
    const numberedRead = code
      .split('\n')
      .map((l, i) => `${i + 1}\t${l}`)
      .join('\n');
    expect((await w.store.get(marker(updated.file.content)!))!.toString('utf8')).toBe(numberedRead);
  });

  it('lays an outline of a read from line 40 at lines 40 on, the first line of the read kept', async () => {
    const { atTrueLines } = await import('../../../../src/hosts/claude/tools.js');
    const original = ['a0', 'a1', 'a2', 'a3', 'a4', 'a5'].join('\n');
    const outline = ['41\t...', '43\ta3', '45\ta5', '<<cg:0123456789abcdef>>'].join('\n');
    expect(atTrueLines(outline, original, 40).split('\n')).toEqual([
      'a0',
      '...',
      '',
      'a3',
      '',
      'a5',
      '<<cg:0123456789abcdef>>',
    ]);
  });

  it('replaces Grep content, Glob and Grep file lists, and WebFetch results in their own fields', async () => {
    const grep = await answer('claude', {
      tool_name: 'Grep',
      tool_input: { pattern: 'x' },
      tool_response: {
        mode: 'content',
        numFiles: 0,
        filenames: [],
        content: lines(3000, (i) => `src/a.py:${i}:x = ${i}`),
        numLines: 3000,
      },
    });
    expect(marker(grep.json.hookSpecificOutput.updatedToolOutput.content)).toBeDefined();
    const glob = await answer('claude', {
      tool_name: 'Glob',
      tool_input: { pattern: '**/*' },
      tool_response: {
        filenames: lines(3000, (i) => `/p/src/file_${i}.py`).split('\n'),
        numFiles: 3000,
        truncated: false,
      },
    });
    const names = glob.json.hookSpecificOutput.updatedToolOutput.filenames as string[];
    expect(Array.isArray(names)).toBe(true);
    expect(names.some((n) => marker(n))).toBe(true);
    const fetch = await answer('claude', {
      tool_name: 'WebFetch',
      tool_input: { url: 'http://x' },
      tool_response: {
        bytes: 1,
        code: 200,
        codeText: 'OK',
        result: lines(3000),
        durationMs: 1,
        url: 'http://x',
      },
    });
    expect(fetch.json.hookSpecificOutput.updatedToolOutput.code).toBe(200);
    expect(marker(fetch.json.hookSpecificOutput.updatedToolOutput.result)).toBeDefined();
  });

  it("replaces an MCP tool's text blocks with updatedMCPToolOutput, and never touches cg's own MCP tools", async () => {
    const mcp = await answer('claude', {
      tool_name: 'mcp__github__list_issues',
      tool_input: {},
      tool_response: [
        { type: 'text', text: lines(3000) },
        { type: 'image', data: 'x' },
      ],
    });
    const blocks = mcp.json.hookSpecificOutput.updatedMCPToolOutput;
    expect(blocks[1]).toEqual({ type: 'image', data: 'x' });
    expect(marker(blocks[0].text)).toBeDefined();
    const own = await answer('claude', {
      tool_name: 'mcp__cg__cg_expand',
      tool_input: { key: '0123456789abcdef' },
      tool_response: [{ type: 'text', text: lines(3000) }],
    });
    expect(own.json).toBeUndefined();
  });
});

describe('Gemini CLI AfterTool replacement', () => {
  const shell = (output: string, trailer: string, extra: Record<string, unknown> = {}) => ({
    hook_event_name: 'AfterTool',
    tool_name: 'run_shell_command',
    tool_input: { command: 'seq 3000' },
    tool_response: {
      llmContent: `<untrusted_context>\nOutput: ${output}${trailer}\n</untrusted_context>`,
      returnDisplay: output,
      ...extra,
    },
  });

  it("answers with a tail call to cg_expand on the stashed replacement, keeping Gemini's exit-code lines", async () => {
    const out = lines(3000);
    const { json, w } = await answer(
      'gemini',
      shell(out, '\nExit Code: 3\nProcess Group PGID: 42'),
      world(),
      {
        mcpTool: 'mcp_cg_cg_expand',
      },
    );
    const tail = json.hookSpecificOutput.tailToolCallRequest;
    expect(tail.name).toBe('mcp_cg_cg_expand');
    const shown = (await w.store.get(tail.args.key))!.toString('utf8');
    expect(shown.startsWith('Output: line 1 of the output\n')).toBe(true);
    expect(shown.endsWith('\nExit Code: 3\nProcess Group PGID: 42')).toBe(true);
    expect((await w.store.get(marker(shown)!))!.toString('utf8')).toBe(out);
  });

  it('answers nothing without the MCP tool to hand the text back through, and for an error result', async () => {
    expect((await answer('gemini', shell(lines(3000), '\nExit Code: 1'))).json).toBeUndefined();
    const failed = shell(lines(3000), '', { error: { message: 'boom', type: 'execution_failed' } });
    expect((await answer('gemini', failed, world(), { mcpTool: 'mcp_cg_cg_expand' })).json).toBeUndefined();
  });
});
