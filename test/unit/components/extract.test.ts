import { describe, expect, it } from 'vitest';
import { MARKER_SLOT, type Outcome } from '../../../src/component.js';
import { type ExtractConfig, extract } from '../../../src/components/extract.js';
import { transcriptQuery } from '../../../src/input/query.js';
import { readTranscript } from '../../../src/input/read.js';
import { context, output } from '../../helpers.js';

const lines = Array.from({ length: 200 }, (_, i) => `row ${i}: value ${i * 3} computed`);
lines[50] = 'row 50: the database connection pool was resized';
lines[120] = 'row 120: ERROR could not open socket';
lines[121] = 'row 121: fatal: giving up';
const text = `${lines.join('\n')}\n`;

async function run(t: string, query: string | undefined, cfg: Partial<ExtractConfig> = {}): Promise<Outcome> {
  return extract.run(output(t), { ...extract.defaults, ...cfg }, context(query ? { query } : {}));
}

describe('extract', () => {
  it('keeps head, tail, query-matching and error lines, folding each gap to one line', async () => {
    const r = await run(text, 'resize the database pool');
    if (r.kind !== 'rewrite') throw new Error(r.gate);
    expect(r.loss).toBe('whole');
    expect(r.text).toBe(
      [
        ...lines.slice(0, 5),
        '…',
        lines[50],
        '…',
        lines[120],
        lines[121],
        '…',
        ...lines.slice(195),
        `[kept 13 of 200 lines] ${MARKER_SLOT}`,
        '',
      ].join('\n'),
    );
  });

  it('keeps only head, tail and error lines without a query', async () => {
    const r = await run(text, undefined);
    if (r.kind !== 'rewrite') throw new Error(r.gate);
    expect(r.note).toBe('kept 12 of 200 lines');
  });

  it('ignores a query keyword found on too many lines to tell them apart', async () => {
    // "row" and "computed" are on nearly every line: they must not keep them all.
    const r = await run(text, 'row computed pool');
    if (r.kind !== 'rewrite') throw new Error(r.gate);
    expect(r.note).toBe('kept 13 of 200 lines');
  });

  it('skips small outputs and outputs with nothing to drop', async () => {
    expect(await run('a\nb\n', 'x')).toEqual({ kind: 'skip', gate: 'under min_tokens' });
    expect(await run(text, undefined, { head_lines: 100, tail_lines: 100 })).toEqual({
      kind: 'skip',
      gate: 'too few lines',
    });
  });

  it('keeps CRLF line endings and the absence of a final newline', async () => {
    const crlf = lines.join('\r\n');
    const r = await run(crlf, 'database');
    if (r.kind !== 'rewrite') throw new Error(r.gate);
    expect(r.text.split('\r\n')).toHaveLength(17);
    expect(r.text.replace(/\r\n/g, '')).not.toContain('\n');
    expect(r.text.endsWith(MARKER_SLOT)).toBe(true);
  });

  it('validates its config', () => {
    expect(() => extract.parseConfig({ max_keyword_share: 2 })).toThrow(/max_keyword_share/);
    expect(extract.parseConfig({ head_lines: 2 }).head_lines).toBe(2);
  });
});

describe('the transcript query', () => {
  it('is the task, the latest user turn and the latest assistant turn, never tool results', () => {
    const body = {
      messages: [
        { role: 'user', content: 'Fix the login timeout' },
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id: 'a', name: 'Bash', input: { command: 'ls' } }],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'a', content: 'noise from ls' }] },
        { role: 'assistant', content: [{ type: 'text', text: 'Old plan' }] },
        { role: 'user', content: 'Also check the session cookie' },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Looking at auth' },
            { type: 'tool_use', id: 'b', name: 'Read', input: { file_path: '/src/auth.ts' } },
          ],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'b', content: 'file text' }] },
      ],
    };
    const t = readTranscript(JSON.stringify(body), 'anthropic', {});
    expect(transcriptQuery(t)).toBe(
      'Fix the login timeout\nAlso check the session cookie\nLooking at auth\n[tool_use Read: /src/auth.ts]',
    );
    expect(transcriptQuery(readTranscript('plain', 'text', {}))).toBeUndefined();
  });
});
