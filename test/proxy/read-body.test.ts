// The proxy gathers a request body as it arrives into one buffer (sized by content-length when
// there is one), never holding every chunk until a concat at the end.
import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { BodyTooLarge, readBody } from '../../src/proxy/body.js';

function request(chunks: Buffer[], headers: Record<string, string> = {}): IncomingMessage {
  const s = new PassThrough();
  Object.assign(s, { headers });
  queueMicrotask(() => {
    for (const c of chunks) s.write(c);
    s.end();
  });
  return s as unknown as IncomingMessage;
}

const parts = Array.from({ length: 40 }, (_, i) => Buffer.from(`chunk ${i} naïve 😀 `.repeat(500)));
const whole = Buffer.concat(parts);

describe('the proxy reading a request body', () => {
  it('gives back the exact bytes, with or without a content-length', async () => {
    expect((await readBody(request(parts, { 'content-length': String(whole.length) }))).equals(whole)).toBe(
      true,
    );
    expect((await readBody(request(parts))).equals(whole)).toBe(true);
  });

  it('still takes a body longer than its content-length said, and refuses one past the cap', async () => {
    expect((await readBody(request(parts, { 'content-length': '10' }))).equals(whole)).toBe(true);
    await expect(readBody(request(parts), 1000)).rejects.toBeInstanceOf(BodyTooLarge);
  });
});
