/**
 * skeleton inside real Claude Code request bodies (shared corpus, transcripts/anthropic): Read
 * results of supported languages are outlined with every kept line's own number, and a fenced code
 * block inside another tool result is outlined in place — every byte outside it untouched.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compactText } from '../../src/engine.js';
import { readTranscript } from '../../src/input/read.js';
import { markerKeys } from '../../src/store/marker.js';
import { createTokens } from '../../src/tokens.js';
import { corpusPath, HAS_CORPUS } from '../helpers.js';
import { MemoryStore } from '../memory-store.js';

const tokens = createTokens('o200k');
const NUMBERED = /^( *(\d+)→)(.*)$/;

function bodies(): [string, string][] {
  if (!HAS_CORPUS) return [];
  const dir = corpusPath('transcripts', 'anthropic');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.anthropic.json'))
    .sort()
    .map((f) => [f, readFileSync(`${dir}/${f}`, 'utf8')]);
}

/** Every numbered line of `after` is line N of `before` as it was, or cut short where a placeholder begins. */
function numbersIntact(before: string, after: string): void {
  const original = new Map<number, string>();
  for (const line of before.split('\n')) {
    const m = NUMBERED.exec(line);
    if (m) original.set(Number(m[2]), line);
  }
  let last = 0;
  let numbered = 0;
  for (const line of after.split('\n')) {
    const m = NUMBERED.exec(line);
    if (!m) continue;
    numbered++;
    const n = Number(m[2]);
    expect(n).toBeGreaterThan(last);
    last = n;
    const was = original.get(n);
    expect(was, `line ${n}`).toBeDefined();
    if (line === was) continue;
    // A changed line keeps its number and the start of its code, then a placeholder.
    const cut = line.search(/\{ … \}|\/\*…\*\/| …|…|\.\.\./);
    expect(cut, line).toBeGreaterThan(0);
    expect(was!.startsWith(line.slice(0, cut).trimEnd()), `${line}\n  was ${was}`).toBe(true);
  }
  expect(numbered).toBeGreaterThan(0);
}

describe.skipIf(!HAS_CORPUS)('skeleton in Claude Code request bodies', () => {
  it('outlines numbered Read results of supported languages, numbers intact, markers exact', async () => {
    let outlined = 0;
    for (const [name, body] of bodies()) {
      const store = new MemoryStore();
      const r = await compactText(body, { components: 'skeleton', store, tokens });
      const before = readTranscript(body, 'auto', {}).outputs;
      const after = readTranscript(r.output, 'auto', {}).outputs;
      expect(after.length, name).toBe(before.length);
      for (const [i, o] of after.entries()) {
        const was = before[i]!;
        if (o.text === was.text) continue;
        outlined++;
        expect(o.toolName, `${name} ${o.id}`).toBe('Read');
        numbersIntact(was.text, o.text);
        const keys = markerKeys(o.text);
        expect(keys).toHaveLength(1);
        expect(store.entries.get(keys[0]!)?.toString('utf8')).toBe(was.text);
        expect(await tokens.fewer(o.text, was.text)).toBe(true);
      }
    }
    // app.js twice (Phoenix hooks, 138 and 373 lines) and a 84-line app.js: real Reads in these sessions.
    expect(outlined).toBeGreaterThanOrEqual(3);
  });

  it('outlines the Phoenix app.js Read of a subagent session down to its hooks and their names', async () => {
    const body = readFileSync(
      corpusPath('transcripts', 'anthropic', 'spotter_subagent_a2898e3_sonnet45.anthropic.json'),
      'utf8',
    );
    const r = await compactText(body, { components: 'skeleton', store: new MemoryStore(), tokens });
    const read = readTranscript(r.output, 'auto', {}).outputs.find(
      (o) => o.id === 'toolu_01GBFEqtZLkQHBXTWaVCunsi',
    )!;
    expect(read.text).toContain('    40→function initReviewsBadge() { … }\n    66→\n');
    expect(read.text).toContain('   182→  _connectChannel(/*…*/) { … },\n   223→\n');
    expect(read.text).toContain('     2→import {/*…*/} from "phoenix"\n');
    expect(read.text).toContain('   372→window.liveSocket = liveSocket\n');
  });

  it('outlines a fenced block inside a Task result and leaves every other byte as it was', async () => {
    const name = 'ccviewer_fe5e1c67_sonnet4_todoapp.anthropic.json';
    const body = JSON.parse(readFileSync(corpusPath('transcripts', 'anthropic', name), 'utf8'));
    const code = readFileSync(corpusPath('code', 'typescript', 'toon_encoders.ts'), 'utf8');
    // The agent's summary quotes a short hook; here it quotes a whole module instead.
    let replaced = 0;
    for (const m of body.messages) {
      if (!Array.isArray(m.content)) continue;
      for (const b of m.content) {
        if (b.type !== 'tool_result') continue;
        const parts = typeof b.content === 'string' ? [b] : b.content;
        for (const p of parts) {
          const key = typeof b.content === 'string' ? 'content' : 'text';
          if (typeof p[key] === 'string' && p[key].includes('```typescript\n')) {
            p[key] = p[key].replace(/```typescript\n[\s\S]*?```/, () => `\`\`\`typescript\n${code}\`\`\``);
            replaced++;
          }
        }
      }
    }
    expect(replaced).toBe(1);
    const input = JSON.stringify(body, null, 2);
    const store = new MemoryStore();
    const r = await compactText(input, { components: 'skeleton', store, tokens });
    const before = readTranscript(input, 'auto', {}).outputs;
    const after = readTranscript(r.output, 'auto', {}).outputs;
    const changed = after.filter((o, i) => o.text !== before[i]!.text);
    expect(changed).toHaveLength(1);
    const [o] = changed;
    const was = before[after.indexOf(o!)]!.text;
    const start = was.indexOf('```typescript\n');
    const end = was.indexOf('```', start + 3);
    // Text before and after the fence is unchanged; the fence holds the outline.
    expect(o!.text.startsWith(was.slice(0, start + '```typescript\n'.length))).toBe(true);
    const tail = was.slice(end);
    expect(o!.text.replace(/\n<<cg:[0-9a-f]{16}>>[^\n]*$/, '').endsWith(tail)).toBe(true);
    expect(o!.text).toContain('export function* encodeJsonValue(');
    expect(o!.text.split('{ … }').length - 1).toBeGreaterThanOrEqual(5);
    const fenced = o!.text.slice(start + '```typescript\n'.length, o!.text.indexOf('```', start + 3));
    expect(await tokens.count(fenced)).toBeLessThan((await tokens.count(code)) / 2);
    expect(store.entries.get(markerKeys(o!.text)[0]!)?.toString('utf8')).toBe(was);
    // Outside that one string, the request body is byte for byte the input.
    const outside = (s: string, t: string) => s.replace(JSON.stringify(t).slice(1, -1), '');
    expect(outside(r.output, o!.text)).toBe(outside(input, was));
  });
});
