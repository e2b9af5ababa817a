// A body's writer can hand its text over as the pieces it would join (Transcript.writeParts), so
// cg writes a 60 MB body out piece by piece and never holds the joined copy (bench/hotpath.mjs body:
// 279 -> 222 MB peak RSS). The pieces must join to exactly what write() gives.
import { describe, expect, it } from 'vitest';
import { compactText } from '../../../src/engine.js';
import { readTranscript } from '../../../src/input/read.js';
import { applyEdits, editedParts } from '../../../src/json/spans.js';

const log = Array.from(
  { length: 300 },
  (_, i) => `line ${i} naïve 😀 status=${i % 7 ? 'ok' : 'FAILED'}`,
).join('\n');
const body = JSON.stringify({
  model: 'claude-sonnet-4',
  max_tokens: 100,
  messages: [
    { role: 'user', content: 'Run the tests' },
    {
      role: 'assistant',
      content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'cat app.log' } }],
    },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: log }] },
    { role: 'assistant', content: [{ type: 'text', text: 'Looked.' }] },
    { role: 'user', content: 'Thanks' },
  ],
});

describe('writing a body as pieces', () => {
  it('gives pieces that join to what applyEdits makes, in edit order', () => {
    const src = 'abcdefghij';
    const edits = [
      { start: 6, end: 8, text: 'XY' },
      { start: 1, end: 3, text: '' },
      { start: 5, end: 5, text: '+' },
    ];
    expect(editedParts(src, edits).join('')).toBe(applyEdits(src, edits));
    expect(editedParts(src, [])).toEqual([src]);
  });

  it('joins to exactly what write() gives, rewrites and a cache breakpoint included', () => {
    const t = readTranscript(body, 'anthropic', {});
    const rewrites = new Map([[t.outputs[0]!.id, 'folded 😀 "quoted"\n']]);
    const edits = [{ kind: 'cache_breakpoint' as const, messageIndex: 3 }];
    expect(t.writeParts!(rewrites, edits).join('')).toBe(t.write(rewrites, edits));
    expect(t.writeParts!(new Map(), [])).toEqual([body]);
  });

  it('hands the pieces to the caller, and the joined output only when it is read', async () => {
    const r = await compactText(body, { components: 'cacheinject', store: null, session: false });
    expect(r.changed).toBe(true);
    expect(r.outputParts.length).toBeGreaterThan(1);
    expect(r.output).toBe(r.outputParts.join(''));
    expect(JSON.parse(r.output).messages[3].content[0].cache_control).toEqual({ type: 'ephemeral' });
  });
});
