import { describe, expect, it } from 'vitest';
import { byteOffsets } from '../../../../src/proxy/turn/placed.js';

describe('byte offsets of a body', () => {
  it('turns UTF-16 offsets into the UTF-8 byte offsets of the same places, for every width of character', () => {
    const head = '{"messages":[';
    const text = 'a→é✓b🚀c "x\\n" 日本語 🧪🧪 end';
    const bytes = Buffer.concat([Buffer.from(head), Buffer.from(text)]);
    const offsets: number[] = [];
    // Every place between whole characters (never inside a surrogate pair).
    for (let i = 0; i <= text.length; i++) if (!/[\udc00-\udfff]/.test(text[i] ?? '')) offsets.push(i);
    const toByte = byteOffsets(
      text,
      bytes,
      head.length,
      Float64Array.from([...offsets, ...offsets].reverse()),
    );
    for (const at of offsets) expect(toByte(at)).toBe(head.length + Buffer.byteLength(text.slice(0, at)));
    expect(() => toByte(1.5)).toThrow(RangeError);
  });

  it('adds only the base for text that is all ASCII', () => {
    const bytes = Buffer.from('xx{"a":1}');
    const toByte = byteOffsets('{"a":1}', bytes, 2, Float64Array.of(0, 7));
    expect(toByte(7)).toBe(9);
  });
});
