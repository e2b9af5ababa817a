import { describe, expect, it } from 'vitest';
import { MARKER_SLOT } from '../../../src/component.js';
import { readTranscript } from '../../../src/input/read.js';
import type { MessageView } from '../../../src/input/transcript.js';
import { judgeReplacement as judgeReplace } from '../../../src/pipeline/structural-edits.js';

const msgs = (n: number, bound: number[] = []): MessageView[] =>
  Array.from({ length: n }, (_, i) => ({
    role: i % 2 ? 'assistant' : 'user',
    text: `m${i}`,
    ...(bound.includes(i) ? { boundToPrevious: true as const } : {}),
  }));
const edit = (from: number, to: number, text = `summary ${MARKER_SLOT}`) => ({
  kind: 'replace_messages',
  from,
  to,
  text,
});
const none: string[] = [];

describe('judging a replacement of messages', () => {
  it('accepts a span that keeps the first and the latest message', () => {
    expect(judgeReplace(edit(1, 5), msgs(8), [], none)).toEqual({ ok: true, edit: edit(1, 5) });
  });

  it('refuses spans that drop the first or the latest message, or are empty', () => {
    for (const [from, to] of [
      [0, 3],
      [1, 8],
      [3, 3],
      [4, 2],
    ] as const)
      expect(judgeReplace(edit(from, to), msgs(8), [], none).ok).toBe(false);
  });

  it('refuses a cut just before a message bound to the one before it (a tool result)', () => {
    const v = judgeReplace(edit(1, 5), msgs(8, [5]), [], none);
    expect(v).toEqual({ ok: false, reason: 'message 5 answers one that would be dropped' });
  });

  it('takes one replacement per run, one marker slot, and no marker it did not see', () => {
    const first = edit(1, 3) as never;
    expect(judgeReplace(edit(4, 6), msgs(8), [first], none).ok).toBe(false);
    expect(judgeReplace(edit(1, 5, 'no slot'), msgs(8), [], none).ok).toBe(false);
    const quoting = `see <<cg:0123456789abcdef>> ${MARKER_SLOT}`;
    expect(judgeReplace(edit(1, 5, quoting), msgs(8), [], none)).toEqual({
      ok: false,
      reason: 'wrote a marker itself',
    });
    expect(
      judgeReplace(edit(1, 5, quoting), msgs(8), [], ['an earlier <<cg:0123456789abcdef>> marker']).ok,
    ).toBe(true);
  });
});

describe('writing a replacement', () => {
  const body = {
    model: 'm',
    messages: [
      { role: 'user', content: 'task' },
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'ls' } }],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'a\nb' }] },
      { role: 'assistant', content: 'done' },
      { role: 'user', content: 'next' },
    ],
  };

  it('splices one user message over the span, and drops changes inside it', () => {
    const raw = JSON.stringify(body, null, 1);
    const t = readTranscript(raw, 'auto', {});
    expect(t.messageSpan!(1, 3)).toBe(
      raw.slice(
        raw.indexOf('{\n   "role": "assistant"'),
        raw.indexOf(',\n  {\n   "role": "assistant",\n   "content": "done"'),
      ),
    );
    const out = t.write(new Map([['t1', 'CHANGED']]), [
      { kind: 'replace_messages', from: 1, to: 3, text: 'S' },
    ]);
    const parsed = JSON.parse(out);
    expect(parsed.messages).toEqual([
      body.messages[0],
      { role: 'user', content: 'S' },
      ...body.messages.slice(3),
    ]);
    expect(out).not.toContain('CHANGED');
    expect(out.startsWith(raw.slice(0, raw.indexOf('{\n   "role": "assistant"')))).toBe(true);
  });

  it('has no span to give for a range outside the messages', () => {
    const t = readTranscript(JSON.stringify(body), 'auto', {});
    expect(t.messageSpan!(3, 9)).toBeUndefined();
    expect(t.messageSpan!(2, 2)).toBeUndefined();
  });
});

describe('judging the start of a replaced span', () => {
  it('refuses to drop a result whose call stays', () => {
    const v = judgeReplace(edit(2, 5), msgs(8, [2]), [], none);
    expect(v).toEqual({ ok: false, reason: 'message 2 answers a kept one and cannot be dropped' });
  });
});
