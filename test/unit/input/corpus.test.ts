import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { detectFormat, readTranscript } from '../../../src/input/read.js';
import { corpusPath, HAS_CORPUS } from '../../helpers.js';

type Json = Record<string, unknown>;

function bodies(format: 'anthropic' | 'openai'): string[] {
  if (!HAS_CORPUS) return [];
  return readdirSync(corpusPath('transcripts', format))
    .filter((f) => f.endsWith(`.${format}.json`))
    .sort();
}

/**
 * The tool-result text slots of a parsed body, found independently of the readers: each is a
 * holder object and the key under which its text sits, in document order.
 */
function toolTextSlots(body: Json): [Json, string][] {
  const slots: [Json, string][] = [];
  for (const m of body.messages as Json[]) {
    const holders: [Json, string][] = [];
    if (m.role === 'tool') holders.push([m, 'content']);
    for (const block of Array.isArray(m.content) ? (m.content as Json[]) : []) {
      if (block.type === 'tool_result') holders.push([block, 'content']);
    }
    for (const [holder, key] of holders) {
      const content = holder[key];
      if (typeof content === 'string') slots.push([holder, key]);
      else if (Array.isArray(content)) {
        for (const part of content as Json[])
          if (part.type === 'text' && typeof part.text === 'string') slots.push([part, 'text']);
      }
    }
  }
  return slots;
}

for (const format of ['anthropic', 'openai'] as const) {
  describe.skipIf(!HAS_CORPUS)(`the ${format} corpus bodies`, () => {
    const files = bodies(format);

    it('are present', () => {
      expect(files.length).toBeGreaterThan(0);
    });

    it.each(files)(`%s is detected as ${format}`, (file) => {
      expect(detectFormat(readFileSync(corpusPath('transcripts', format, file), 'utf8'))).toBe(format);
    });

    it.each(files)('%s yields exactly the tool-result texts, with unique ids', (file) => {
      const raw = readFileSync(corpusPath('transcripts', format, file), 'utf8');
      const t = readTranscript(raw, 'auto', {});
      const expected = toolTextSlots(JSON.parse(raw)).map(([holder, key]) => holder[key]);
      expect(t.outputs.map((o) => o.text)).toEqual(expected);
      expect(new Set(t.outputs.map((o) => o.id)).size).toBe(t.outputs.length);
      expect(t.messages.length).toBe((JSON.parse(raw).messages as unknown[]).length);
      expect(t.outputs.filter((o) => o.toolName !== undefined).length).toBe(t.outputs.length);
    });

    it.each(files)('%s round-trips byte for byte with no rewrites', (file) => {
      const raw = readFileSync(corpusPath('transcripts', format, file), 'utf8');
      expect(readTranscript(raw, 'auto', {}).write(new Map())).toBe(raw);
    });

    it.each(files)('%s changes only the rewritten strings when every output is rewritten', (file) => {
      const raw = readFileSync(corpusPath('transcripts', format, file), 'utf8');
      const t = readTranscript(raw, 'auto', {});
      const rewrites = new Map(t.outputs.map((o, i) => [o.id, `<${i}> ${o.text.slice(0, 20)}"\\\n`]));
      const out = t.write(rewrites);
      const expected = JSON.parse(raw) as Json;
      toolTextSlots(expected).forEach(([holder, key], i) => {
        holder[key] = rewrites.get(t.outputs[i]!.id);
      });
      expect(JSON.parse(out)).toStrictEqual(expected);
      const again = readTranscript(out, 'auto', {});
      expect(again.outputs.map((o) => [o.id, o.text])).toEqual(
        t.outputs.map((o) => [o.id, rewrites.get(o.id)]),
      );
    });

    it.each(files)('%s keeps every byte outside a rewritten output', (file) => {
      const raw = readFileSync(corpusPath('transcripts', format, file), 'utf8');
      const t = readTranscript(raw, 'auto', {});
      const target = t.outputs[Math.floor(t.outputs.length / 2)]!;
      const literal = '"REWRITTEN"';
      const out = t.write(new Map([[target.id, 'REWRITTEN']]));
      const start = out.indexOf(literal);
      const end = raw.length - (out.length - start - literal.length);
      expect(out.slice(0, start)).toBe(raw.slice(0, start));
      expect(out.slice(start + literal.length)).toBe(raw.slice(end));
      // What was replaced is exactly the JSON string literal of the original text.
      expect(JSON.parse(raw.slice(start, end))).toBe(target.text);
      expect(raw[start]).toBe('"');
      expect(raw[end - 1]).toBe('"');
    });
  });
}
