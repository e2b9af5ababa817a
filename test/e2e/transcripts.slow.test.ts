import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readTranscript } from '../../src/input/read.js';
import { createFsStore } from '../../src/store/fs-store.js';
import { corpusPath, HAS_CORPUS, tempDir } from '../helpers.js';
import { cg } from './run-cg.js';

const MARKER = /<<cg:([0-9a-f]{16})>>/g;

function bodies(): string[] {
  if (!HAS_CORPUS) return [];
  const out: string[] = [];
  for (const [dir, suffix] of [
    ['anthropic', '.anthropic.json'],
    ['openai', '.openai.json'],
  ] as const) {
    const base = corpusPath('transcripts', dir);
    for (const f of readdirSync(base)) if (f.endsWith(suffix)) out.push(join(base, f));
  }
  return out.sort();
}

interface Shape {
  role: unknown;
  parts: unknown;
}

/** Message roles and content-block types: what must survive any rewrite. */
function shape(body: unknown): Shape[] {
  const msgs = Array.isArray(body) ? body : ((body as { messages?: unknown[] }).messages ?? []);
  return msgs.map((m) => {
    const msg = m as { role?: unknown; content?: unknown };
    const parts = Array.isArray(msg.content)
      ? msg.content.map((b) => (b as { type?: unknown }).type)
      : typeof msg.content;
    return { role: msg.role, parts };
  });
}

describe.skipIf(!HAS_CORPUS)('real request bodies through the CLI', () => {
  for (const file of bodies()) {
    const name = file.split('/').pop()!;
    for (const args of [
      ['--preset', 'safe'],
      ['--components', 'format,collapse'],
    ]) {
      it(`${name} with ${args.join(' ')} stays valid JSON with the same messages, and every marker expands to its original`, async () => {
        const storeDir = tempDir();
        const input = readFileSync(file, 'utf8');
        const r = cg(args, { input, storeDir });
        expect(r.code).toBe(0);
        const parsed = JSON.parse(r.out);
        expect(shape(parsed)).toEqual(shape(JSON.parse(input)));
        const before = readTranscript(input, 'auto', {});
        const after = readTranscript(r.out, 'auto', {});
        expect(after.format).toBe(before.format);
        expect(after.outputs.map((o) => o.id)).toEqual(before.outputs.map((o) => o.id));
        const store = createFsStore({ dir: storeDir, ttlDays: 14, maxBytes: 1 << 30, compress: true });
        let markers = 0;
        for (const [i, o] of after.outputs.entries()) {
          const original = before.outputs[i]!;
          const keys = [...o.text.matchAll(MARKER)].map((m) => m[1]!);
          if (keys.length === 0) continue;
          markers++;
          expect(keys).toHaveLength(1);
          expect((await store.get(keys[0]!))?.toString('utf8')).toBe(original.text);
          expect(original.isError).toBe(false);
        }
        if (args[0] === '--preset') expect(markers).toBe(0);
        // cacheinject (in safe) adds a cache breakpoint: structure, not tool output.
        const withoutBreakpoint = r.out.replace(',"cache_control":{"type":"ephemeral"}', '');
        expect(Buffer.byteLength(withoutBreakpoint)).toBeLessThanOrEqual(Buffer.byteLength(input));
      });
    }
  }

  it('leaves an is_error result and an image block untouched', () => {
    const big = Array.from({ length: 5000 }, (_, i) => `error line ${i}`).join('\n');
    const body = {
      model: 'claude-sonnet-4',
      max_tokens: 100,
      messages: [
        { role: 'user', content: 'go' },
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id: 'a', name: 'Bash', input: { command: 'make' } }],
        },
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 'a', is_error: true, content: big }],
        },
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id: 'b', name: 'Read', input: { file_path: '/x.png' } }],
        },
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 'b',
              content: [
                {
                  type: 'image',
                  source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo='.repeat(4000) },
                },
              ],
            },
          ],
        },
      ],
    };
    const input = JSON.stringify(body, null, 1);
    const r = cg(['--components', 'collapse'], { input });
    expect(r.code).toBe(0);
    expect(r.out).toBe(input);
  });
});
