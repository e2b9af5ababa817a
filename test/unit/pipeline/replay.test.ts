import { describe, expect, it } from 'vitest';
import type { ToolOutput } from '../../../src/input/transcript.js';
import { backPins } from '../../../src/pipeline/replay.js';
import { createFsStore } from '../../../src/store/fs-store.js';
import { keyOf } from '../../../src/store/keys.js';
import { tempDir } from '../../helpers.js';
import { MemoryStore } from '../../memory-store.js';

const out = (id: string, text: string): ToolOutput => ({
  id,
  text,
  rewritable: true,
  isError: false,
  messageIndex: 0,
});
const placeholder = (text: string) => ({
  text: `[older tool output masked] <<cg:${keyOf(text)}>>`,
  final: true,
});

describe('backing a session’s pins before they are re-sent', () => {
  const a = out('a', 'first original output\n'.repeat(50));
  const b = out('b', 'second original output\n'.repeat(50));

  it('stashes again an original whose entry is gone, and leaves one that is there alone', async () => {
    const store = new MemoryStore();
    await store.put(a.text);
    store.puts = 0;
    const pins = new Map([
      ['a', placeholder(a.text)],
      ['b', placeholder(b.text)],
    ]);
    const backed = await backPins([a, b], pins, store);
    expect(backed).toMatchObject({ restashed: 1, dropped: 0 });
    expect(store.puts).toBe(1);
    expect(store.entries.get(keyOf(b.text))?.toString()).toBe(b.text);
    expect([...backed.pins.keys()]).toEqual(['a', 'b']);
  });

  it('drops a pin it cannot back: a marker for another original, or a store that cannot write', async () => {
    const foreign = new Map([['a', { text: `masked <<cg:${keyOf('something else')}>>`, final: true }]]);
    expect(await backPins([a], foreign, new MemoryStore())).toMatchObject({ dropped: 1 });
    const ro = new MemoryStore();
    ro.canWrite = false;
    const backed = await backPins([a], new Map([['a', placeholder(a.text)]]), ro);
    expect(backed.dropped).toBe(1);
    expect(backed.pins.size).toBe(0);
  });

  it('works with a store that cannot tell whether it has an entry (a put compares)', async () => {
    const store = new MemoryStore();
    (store as { has?: unknown }).has = undefined;
    await store.put(a.text);
    const backed = await backPins([a], new Map([['a', placeholder(a.text)]]), store);
    expect(backed).toMatchObject({ restashed: 0, dropped: 0 });
  });

  it('asks the disk store with one lstat', async () => {
    const store = createFsStore({ dir: tempDir(), ttlDays: 14, maxBytes: 1 << 30, compress: true });
    expect(await store.has!(keyOf(a.text))).toBe(false);
    await store.put(a.text);
    expect(await store.has!(keyOf(a.text))).toBe(true);
    expect(await store.has!('../../etc/passwd')).toBe(false);
    await store.clear();
    expect(await store.has!(keyOf(a.text))).toBe(false);
  });
});
