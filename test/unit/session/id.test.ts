import { describe, expect, it } from 'vitest';
import { readTranscript } from '../../../src/input/read.js';
import { sessionIdentity } from '../../../src/session/id.js';
import { sessionsDir } from '../../../src/session/location.js';

const read = (body: unknown) => readTranscript(JSON.stringify(body), 'auto', {});
const conv = (first: string, more = 0) => ({
  system: 'You are an agent.',
  messages: [
    { role: 'user', content: first },
    ...Array.from({ length: more }, (_, i) => ({ role: i % 2 ? 'user' : 'assistant', content: `m${i}` })),
  ],
});

describe('session identity', () => {
  it('is derived from the system prompt and first user message, so it holds as the conversation grows', () => {
    const a = sessionIdentity(read(conv('Fix the bug')))!;
    expect(a.key).toMatch(/^[0-9a-f]{16}$/);
    expect(a.label).toBe(`derived:${a.key}`);
    expect(sessionIdentity(read(conv('Fix the bug', 7)))).toEqual(a);
    expect(sessionIdentity(read(conv('Fix another bug')))!.key).not.toBe(a.key);
  });

  it('takes an explicit id, whose file name is still a content key', () => {
    const s = sessionIdentity(read(conv('x')), '../../etc/passwd')!;
    expect(s.label).toBe('../../etc/passwd');
    expect(s.key).toMatch(/^[0-9a-f]{16}$/);
  });

  it('has no derived id for a body with neither system prompt nor user message', () => {
    const t = read({ messages: [{ role: 'assistant', content: 'hi' }] });
    expect(sessionIdentity(t)).toBeUndefined();
  });

  it('keeps records under the state dir, like the stats ledger', () => {
    expect(sessionsDir({ CG_STATE_DIR: '/tmp/st' })).toBe('/tmp/st/sessions');
    expect(sessionsDir({ XDG_STATE_HOME: '/x/state' })).toBe('/x/state/cg/sessions');
    expect(sessionsDir({ XDG_STATE_HOME: 'relative', HOME: '/' })).toBe('/.local/state/cg/sessions');
  });

  it('keeps no records when the state dir would hang from a home directory that does not exist', () => {
    expect(sessionsDir({ HOME: '/nonexistent-cg-home' })).toBeUndefined();
    expect(sessionsDir({ HOME: '/nonexistent-cg-home', CG_STATE_DIR: '/tmp/st' })).toBe('/tmp/st/sessions');
  });
});
