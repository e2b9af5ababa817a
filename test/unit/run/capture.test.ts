import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { Capture } from '../../../src/run/capture.js';

/** A sink that records what reaches it; `slow` holds each write back until release(). */
function sink(slow = false) {
  const got: Buffer[] = [];
  const pending: (() => void)[] = [];
  const w = new Writable({
    highWaterMark: 1,
    write(chunk: Buffer, _enc, done) {
      got.push(chunk);
      if (slow) pending.push(done);
      else done();
    },
  });
  return {
    w,
    text: () => Buffer.concat(got).toString(),
    release: () => {
      for (const f of pending.splice(0)) f();
    },
  };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('Capture', () => {
  it('holds output up to the cap and counts bytes and lines, writing nothing', async () => {
    const source = new PassThrough();
    const out = sink();
    const c = new Capture(source, out.w, 100);
    source.write('a\nb\n');
    source.write('c\n');
    await tick();
    expect([c.streaming, c.bytes, c.lines, c.output().toString(), out.text()]).toEqual([
      false,
      6,
      3,
      'a\nb\nc\n',
      '',
    ]);
  });

  it('past the cap, writes what it held and then each chunk, so the reader gets every byte in order', async () => {
    const source = new PassThrough();
    const out = sink();
    const c = new Capture(source, out.w, 8);
    let told = 0;
    c.whenStreaming(() => told++);
    source.write('12345');
    await tick();
    source.write('67890');
    await tick();
    source.write('abc');
    await tick();
    await c.flushed();
    expect([c.streaming, told, out.text()]).toEqual([true, 1, '1234567890abc']);
    expect(() => c.output()).toThrow(/streamed/);
  });

  it('streams from the moment it is told to, held bytes first', async () => {
    const source = new PassThrough();
    const out = sink();
    const c = new Capture(source, out.w, 1 << 20);
    source.write('held ');
    await tick();
    c.stream();
    c.stream(); // idempotent
    source.write('live');
    await tick();
    await c.flushed();
    expect(out.text()).toBe('held live');
  });

  it('pauses the source while the reader is slow, and resumes it once the write is taken', async () => {
    const source = new PassThrough();
    const out = sink(true);
    const c = new Capture(source, out.w, 0);
    source.write('x');
    await tick();
    expect(source.isPaused()).toBe(true);
    out.release();
    await tick();
    expect(source.isPaused()).toBe(false);
    await c.flushed();
    expect(out.text()).toBe('x');
  });
});
