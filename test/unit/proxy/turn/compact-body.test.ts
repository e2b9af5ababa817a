import { cpSync, existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentSession, turnOf } from '../../../../bench/proxy-sessions.mjs';
import { compactBody } from '../../../../src/proxy/turn/compact-body.js';
import { TurnMemory } from '../../../../src/proxy/turn/memory.js';
import type { Store } from '../../../../src/store/store.js';
import { createTokens } from '../../../../src/tokens.js';
import { MemoryStore } from '../../../memory-store.js';

type Body = ReturnType<typeof agentSession>;
type Block = Record<string, unknown>;

const tokens = createTokens('o200k');
const env = { ...process.env, CG_STATE_DIR: mkdtempSync(join(tmpdir(), 'cg-body-state-')) };

/** The turn ending at message `end`, with Claude Code's moving breakpoint on its last block. */
function turn(body: Body, end: number): Buffer {
  const t = structuredClone(turnOf(body, end)) as Body;
  const blocks = t.messages.at(-1)!.content as Block[];
  blocks[blocks.length - 1]!.cache_control = { type: 'ephemeral' };
  return Buffer.from(JSON.stringify(t));
}

const compact = (bytes: Buffer, dir: string, store: Store, turns?: TurnMemory, signal?: AbortSignal) =>
  compactBody(bytes, {
    ...(signal ? { signal } : {}),
    preset: 'agent',
    format: 'anthropic',
    store,
    tokens,
    env,
    session: { id: 'body-1', dir, env },
    ...(turns ? { turns } : {}),
  });

describe('compactBody with the memory of the last turn', () => {
  it('reads only the new messages of a next turn and writes the bytes a full read writes', async () => {
    const store = new MemoryStore();
    const dir = mkdtempSync(join(tmpdir(), 'cg-body-sessions-'));
    const turns = new TurnMemory();
    const body = agentSession(150, { session: 'cccccccc-2222-4333-8444-555555555555' });
    const ends = body.messages.flatMap((m, i) => (m.role === 'user' ? [i] : [])).slice(-10);
    let carried = 0;
    for (const end of ends) {
      const bytes = turn(body, end);
      // A fresh compaction from a copy of the record as the carrying caller has it now.
      const copy = mkdtempSync(join(tmpdir(), 'cg-body-fresh-'));
      if (existsSync(dir)) cpSync(dir, copy, { recursive: true });
      const fresh = await compact(bytes, copy, store);
      const next = await compact(bytes, dir, store, turns);
      expect(next.body.toString()).toBe(fresh.body.toString());
      expect(next.changed).toBe(fresh.changed);
      if (next.notes.some((n) => /messages as in the last turn, not read again/.test(n))) carried++;
    }
    expect(carried).toBe(ends.length - 1);
  });

  it('writes what a fresh compaction writes, turn after turn, when two earlier outputs share an id', async () => {
    const store = new MemoryStore();
    const dir = mkdtempSync(join(tmpdir(), 'cg-body-dup-'));
    const turns = new TurnMemory();
    const body = agentSession(80, { session: 'abababab-2222-4333-8444-555555555555' });
    // The fourth call and its result take the second's id: outputs by id and by place then differ.
    const blocks = (i: number) => body.messages[i]!.content as Block[];
    const calls = body.messages.flatMap((m, i) =>
      m.role === 'assistant' &&
      Array.isArray(m.content) &&
      (m.content as Block[]).some((b) => b.type === 'tool_use')
        ? [i]
        : [],
    );
    const callOf = (i: number) => blocks(calls[i]!).find((b) => b.type === 'tool_use')!;
    const resultOf = (i: number) => blocks(calls[i]! + 1).find((b) => b.type === 'tool_result')!;
    const shared = callOf(1).id;
    callOf(3).id = shared;
    resultOf(3).tool_use_id = shared;
    const ends = body.messages.flatMap((m, i) => (m.role === 'user' ? [i] : [])).slice(-6);
    let carried = 0;
    for (const end of ends) {
      const bytes = turn(body, end);
      const copy = mkdtempSync(join(tmpdir(), 'cg-body-dup-fresh-'));
      if (existsSync(dir)) cpSync(dir, copy, { recursive: true });
      const fresh = await compact(bytes, copy, store);
      const next = await compact(bytes, dir, store, turns);
      expect(next.body.toString()).toBe(fresh.body.toString());
      if (next.notes.some((n) => /messages as in the last turn, not read again/.test(n))) carried++;
    }
    expect(carried).toBe(ends.length - 1);
  });

  it('gives every marker its own original, also where two tool results answer the same tool_use_id', async () => {
    const store = new MemoryStore();
    const dir = mkdtempSync(join(tmpdir(), 'cg-body-dup-keys-'));
    const body = agentSession(60, { session: 'efefefef-2222-4333-8444-555555555555' });
    const results = body.messages.flatMap((m) =>
      Array.isArray(m.content) ? (m.content as Block[]).filter((b) => b.type === 'tool_result') : [],
    );
    const calls = body.messages.flatMap((m) =>
      Array.isArray(m.content) ? (m.content as Block[]).filter((b) => b.type === 'tool_use') : [],
    );
    // Pairs of outputs sharing an id, each pair with different texts, all large and old enough to
    // be masked (so each gets a marker).
    const large = results
      .map((r, i) => [i, String(r.content).length] as const)
      .filter(([i, n]) => i < 40 && n > 1500)
      .map(([i]) => i);
    expect(large.length).toBeGreaterThanOrEqual(6);
    for (let k = 0; k + 1 < 6; k += 2) {
      const [a, b] = [large[k]!, large[k + 1]!];
      calls[b]!.id = calls[a]!.id;
      results[b]!.tool_use_id = results[a]!.tool_use_id;
    }
    const shared = new Set(large.slice(0, 6));
    let sharedMarkers = 0;
    for (const turns of [undefined, new TurnMemory()]) {
      const out = await compact(Buffer.from(JSON.stringify(body)), dir, store, turns);
      const sent = JSON.parse(out.body.toString()) as Body;
      const sentResults = sent.messages.flatMap((m) =>
        Array.isArray(m.content) ? (m.content as Block[]).filter((b) => b.type === 'tool_result') : [],
      );
      let markers = 0;
      for (const [i, r] of sentResults.entries()) {
        for (const [, key] of String(r.content).matchAll(/<<cg:([0-9a-f]{16})>>/g)) {
          expect((await store.get(key!))?.toString('utf8')).toBe(String(results[i]!.content));
          markers++;
          if (shared.has(i)) sharedMarkers++;
        }
      }
      expect(markers).toBeGreaterThan(20);
    }
    expect(sharedMarkers).toBe(12);
  });

  it('compacts a body that is not valid UTF-8 the way a full read of its text does', async () => {
    const bytes = Buffer.from(
      JSON.stringify(agentSession(30, { session: 'dddddddd-2222-4333-8444-555555555555' })),
    );
    // One byte of a tool result's text that no UTF-8 sequence begins with.
    bytes[bytes.indexOf('case 1 ') + 5] = 0xff;
    const dir = mkdtempSync(join(tmpdir(), 'cg-body-bad-'));
    const carried = await compact(bytes, dir, new MemoryStore(), new TurnMemory());
    const plain = await compact(bytes, mkdtempSync(join(tmpdir(), 'cg-body-bad2-')), new MemoryStore());
    expect(carried.body.toString()).toBe(plain.body.toString());
    expect(carried.body.toString()).toContain('\ufffd');
  });

  it('leaves the memory to a later turn when an earlier one ends after its deadline, and sends what a fresh compaction sends', async () => {
    const store = new MemoryStore();
    const dir = mkdtempSync(join(tmpdir(), 'cg-body-abort-'));
    const turns = new TurnMemory();
    const body = agentSession(60, { session: 'eeeeeeee-2222-4333-8444-555555555555' });
    const ends = body.messages.flatMap((m, i) => (m.role === 'user' ? [i] : [])).slice(-4);
    // A short result in the turn that overtakes, left as it is: the last turn reads it from the body.
    (body.messages[ends[2]!]!.content as Block[])[0]!.content = 'ok\n';
    await compact(turn(body, ends[0]!), dir, store, turns);
    // The second turn waits in the store until the third is done, and is aborted meanwhile (the
    // proxy sent the original on and took the next request).
    let reached!: (v: boolean) => void;
    const inPut = new Promise<boolean>((r) => {
      reached = r;
    });
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const slow: Store = Object.assign(Object.create(store) as MemoryStore, {
      put: async (original: string, bytes?: Uint8Array) => {
        reached(true);
        await gate;
        return store.put(original, bytes);
      },
    });
    const aborted = new AbortController();
    const second = compact(turn(body, ends[1]!), dir, slow, turns, aborted.signal);
    expect(await Promise.race([inPut, second.then(() => false)])).toBe(true);
    aborted.abort();
    await compact(turn(body, ends[2]!), dir, store, turns);
    release();
    await second;
    const last = turn(body, ends[3]!);
    const copy = mkdtempSync(join(tmpdir(), 'cg-body-abort-fresh-'));
    cpSync(dir, copy, { recursive: true });
    const fresh = await compact(last, copy, store);
    const next = await compact(last, dir, store, turns);
    expect(next.body.toString()).toBe(fresh.body.toString());
  });
});
