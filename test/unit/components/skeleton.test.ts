import { describe, expect, it } from 'vitest';
import type { Outcome, ToolOutput } from '../../../src/component.js';
import { type SkeletonConfig, skeleton } from '../../../src/components/skeleton.js';
import { compactText } from '../../../src/engine.js';
import { ConfigError } from '../../../src/errors.js';
import { markerKeys } from '../../../src/store/marker.js';
import { createTokens } from '../../../src/tokens.js';
import { context, output } from '../../helpers.js';
import { MemoryStore } from '../../memory-store.js';

const tokens = createTokens('o200k');
const cfg = skeleton.defaults;

const PY = [
  'import os',
  '',
  '',
  'def walk(root):',
  '    """Yield every file under root."""',
  '    for base, dirs, files in os.walk(root):',
  '        dirs.sort()',
  '        for name in sorted(files):',
  '            if name.startswith("."):',
  '                continue',
  '            yield os.path.join(base, name)',
  '    print("walked", root, "and all of its sub-directories, sorted by name")',
  '',
  '',
  'def one():',
  '    return 1',
  '',
].join('\n');

async function run(o: ToolOutput, config: Partial<SkeletonConfig> = {}, lang?: string): Promise<Outcome> {
  return skeleton.run(o, { ...cfg, min_tokens: 20, ...config }, context(lang ? { lang } : {}));
}

async function rewritten(
  o: ToolOutput,
  config: Partial<SkeletonConfig> = {},
  lang?: string,
): Promise<string> {
  const r = await run(o, config, lang);
  if (r.kind !== 'rewrite') throw new Error(`expected a rewrite, got skip (${r.gate})`);
  expect(r.loss).toBe('whole');
  return r.text;
}

const numbered = (code: string, from = 1) =>
  code
    .split('\n')
    .map((l, i) => `${String(i + from).padStart(6)}→${l}`)
    .join('\n');

describe('skeleton min_file_tokens', () => {
  const o = (text: string) => output(text, { command: 'cat app.py' });
  it('leaves a file under it as it is, and outlines one at or over it', async () => {
    // PY is well under 1,000 tokens and has bodies over the min_tokens of 20 used here.
    expect(await run(o(PY), { min_file_tokens: 1000 })).toEqual({
      kind: 'skip',
      gate: 'under min_file_tokens',
    });
    expect((await run(o(PY), { min_file_tokens: 50 })).kind).toBe('rewrite');
    expect((await run(o(PY), { min_file_tokens: 0 })).kind).toBe('rewrite');
  });

  it('is judged per fenced block', async () => {
    const text = `Two blocks:\n\n\`\`\`python\n${PY}\`\`\`\n\ntiny:\n\n\`\`\`python\nx = 1\n\`\`\`\n`;
    const r = await run(output(text), { min_file_tokens: 50 });
    expect(r.kind).toBe('rewrite');
    if (r.kind === 'rewrite') expect(r.text).toContain('```python\nx = 1\n```');
  });
});

describe('skeleton max_bytes', () => {
  it('leaves a file or a fenced block of more bytes as it is, before parsing it', async () => {
    const bytes = Buffer.byteLength(PY);
    const file = output(PY, { command: 'cat app.py' });
    expect(await run(file, { max_bytes: bytes - 1 })).toEqual({ kind: 'skip', gate: 'over max_bytes' });
    expect((await run(file, { max_bytes: bytes })).kind).toBe('rewrite');
    const fenced = output(`Here:\n\n\`\`\`python\n${PY}\`\`\`\n`);
    expect(await run(fenced, { max_bytes: bytes - 2 })).toEqual({ kind: 'skip', gate: 'over max_bytes' });
    expect((await run(fenced, { max_bytes: bytes })).kind).toBe('rewrite');
  });
});

describe('skeleton config', () => {
  it('is strict, and reads language aliases as their names', () => {
    expect(skeleton.parseConfig({ languages: ['py', 'golang', 'c++', 'python'] }).languages).toEqual([
      'python',
      'go',
      'cpp',
    ]);
    expect(() => skeleton.parseConfig({ languages: ['elixir'] })).toThrow(ConfigError);
    expect(() => skeleton.parseConfig({ languages: ['elixir'] })).toThrow(
      /languages\[0\]: unknown language "elixir"/,
    );
    expect(() => skeleton.parseConfig({ min_tokens: -1 })).toThrow(/min_tokens/);
    expect(() => skeleton.parseConfig({ keep_docstrings: 'yes' })).toThrow(/keep_docstrings/);
    expect(() => skeleton.parseConfig({ target_ratio: 0 })).toThrow(/target_ratio/);
    expect(() => skeleton.parseConfig({ target_ratio: 1.5 })).toThrow(/target_ratio/);
    expect(skeleton.parseConfig({ target_ratio: 1 }).target_ratio).toBe(1);
  });

  it('applies only when a body of min_tokens could fit and some language is on', () => {
    expect(skeleton.applies!(output('x'), cfg)).toBe(false);
    expect(skeleton.applies!(output(PY), cfg)).toBe(true);
    expect(skeleton.applies!(output(PY), { ...cfg, languages: [] })).toBe(false);
  });
});

describe('skeleton', () => {
  it('outlines a whole file named by --lang', async () => {
    const text = await rewritten(output(PY), {}, 'py');
    expect(text).toBe(
      [
        'import os',
        '',
        '',
        'def walk(root):',
        '    """Yield every file under root."""',
        '    ...',
        '',
        '',
        'def one():',
        '    return 1',
        '',
      ].join('\n'),
    );
  });

  it('outlines the output of a command that prints a file (cat, sed -n, head, cg run -- cat)', async () => {
    for (const command of ['cat tools/walk.py', "sed -n '1,200p' walk.py", 'head -n 300 walk.py']) {
      expect(await rewritten(output(PY, { command }))).toContain('    ...\n');
    }
  });

  it('keeps every kept line of a numbered Read result with its own number, and what follows it', async () => {
    const reminder = '\n\n<system-reminder>\nThis file may be malicious.\n</system-reminder>\n';
    const text = numbered(PY) + reminder;
    const out = await rewritten(output(text, { path: '/repo/walk.py', toolName: 'Read' }));
    expect(out).toBe(
      [
        '     1→import os',
        '     2→',
        '     3→',
        '     4→def walk(root):',
        '     5→    """Yield every file under root."""',
        '     6→    ...',
        '    13→',
        '    14→',
        '    15→def one():',
        '    16→    return 1',
        '    17→',
      ].join('\n') + reminder,
    );
  });

  it('keeps the numbers of a Read that starts inside a file', async () => {
    const out = await rewritten(output(numbered(PY, 120), { path: 'walk.py', toolName: 'Read' }));
    expect(out.split('\n')[5]).toBe('   125→    ...');
  });

  it('outlines fenced code blocks inside other text and leaves the text around them alone', async () => {
    const text = `Here is the helper:\n\n\`\`\`python\n${PY}\`\`\`\n\nand a shell step:\n\n\`\`\`bash\nls -la\n\`\`\`\n`;
    const out = await rewritten(output(text));
    expect(out.startsWith('Here is the helper:\n\n```python\nimport os\n')).toBe(true);
    expect(out).toContain(
      '    ...\n\n\ndef one():\n    return 1\n```\n\nand a shell step:\n\n```bash\nls -la\n```\n',
    );
  });

  it('says why it does nothing', async () => {
    const gate = async (o: ToolOutput, config: Partial<SkeletonConfig> = {}, lang?: string) => {
      const r = await run(o, config, lang);
      return r.kind === 'skip' ? r.gate : 'rewrite';
    };
    expect(await gate(output('just some text\n'.repeat(20)))).toBe('no code found');
    expect(await gate(output(PY), {}, 'elixir')).toBe('unknown language "elixir"');
    expect(await gate(output(PY), { languages: ['go'] }, 'py')).toBe('language not enabled: python');
    expect(await gate(output(PY), { min_tokens: 10_000 }, 'py')).toBe(
      'no python body of at least 10000 tokens',
    );
    expect(await gate(output('INFO 12:00 start {\nWARN [x] 91%% disk\n'.repeat(10)), {}, 'py')).toMatch(
      /^python parse errors in/,
    );
  });

  it('runs through the engine: the marker expands to the exact original, and a second pass changes nothing', async () => {
    const store = new MemoryStore();
    const first = await compactText(PY, {
      components: 'skeleton',
      lang: 'py',
      store,
      tokens,
      config: { components: { skeleton: { min_tokens: 20 } } },
    });
    expect(first.changed).toBe(true);
    const keys = markerKeys(first.output);
    expect(keys).toHaveLength(1);
    expect(store.entries.get(keys[0]!)?.toString('utf8')).toBe(PY);
    const second = await compactText(first.output, { components: 'skeleton', lang: 'py', store, tokens });
    expect(second.output).toBe(first.output);
  });
});
