// The pipeline proves a cache breakpoint lossless on the message it goes into. A body read in full
// writes that message alone for the proof (Transcript.writeMessage), from the very splices its
// write() makes: writing the whole body for it cost a copy of the body (63 MB for a 60 MB body).
import { describe, expect, it } from 'vitest';
import { decide } from '../../../src/engine.js';
import { readTranscript } from '../../../src/input/read.js';

const body = JSON.stringify({
  model: 'claude-sonnet-4',
  max_tokens: 100,
  messages: [
    { role: 'user', content: 'Run the tests' },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Running.' },
        { type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'npm test' } },
      ],
    },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'ok\nall passed' }] },
  ],
});

describe('writing one message of a body read in full', () => {
  it('proves a cache breakpoint on that message alone, never writing the whole body', async () => {
    const t = readTranscript(body, 'anthropic', {});
    const write = t.write;
    let whole = 0;
    t.write = (rewrites, edits) => {
      whole++;
      return write(rewrites, edits);
    };
    const d = await decide(t, { components: 'cacheinject', store: null });
    expect(whole).toBe(0);
    expect(d.events.find((e) => e.action === 'rewrite')?.note).toBe('cache breakpoint on message 1');
    const out = JSON.parse(write(d.rewrites, d.edits));
    expect(out.messages[1].content[1].cache_control).toEqual({ type: 'ephemeral' });
  });

  it('gives what write() makes inside the message, and nothing for an edit outside it or one it cannot take', () => {
    const t = readTranscript(body, 'anthropic', {});
    const edit = { kind: 'cache_breakpoint' as const, messageIndex: 1 };
    const range = t.messageRange!(1, 2)!;
    const written = t.write(new Map(), [edit]);
    const added = written.length - body.length;
    expect(t.writeMessage!(1, [edit])).toBe(written.slice(range.start, range.end + added));
    expect(t.writeMessage!(1, [])).toBe(t.messageSpan!(1, 2));
    expect(t.writeMessage!(2, [edit])).toBeUndefined();
    expect(t.writeMessage!(0, [{ kind: 'cache_breakpoint', messageIndex: 0 }])).toBeUndefined();
    expect(t.writeMessage!(9, [])).toBeUndefined();
  });
});
