// A request body's span tree is several times the body's size (a node, a member and an array per
// JSON value): a transcript must keep only the spans it writes into, so the tree is collected once
// the body is read, not held through the pipeline and the write (issue 13 item 9, issue 16 item 5).
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { readAnthropic } from '../../../src/input/anthropic.js';
import { readOpenAI } from '../../../src/input/openai.js';
import { readResponses } from '../../../src/input/responses.js';
import type { Transcript } from '../../../src/input/transcript.js';
import { type JsonNode, parseJsonSpans } from '../../../src/json/spans.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Every node of a tree, its containers' member and item lists too. */
function nodesOf(root: JsonNode): object[] {
  const all: object[] = [];
  const work = [root];
  for (let n = work.pop(); n !== undefined; n = work.pop()) {
    all.push(n);
    if (n.type === 'object') {
      all.push(n.members, ...n.members);
      work.push(...n.members.map((m) => m.value));
    } else if (n.type === 'array') {
      all.push(n.items);
      work.push(...n.items);
    }
  }
  return all;
}

/** Reads raw with `read`, holding the nodes of its span tree only through WeakRefs. */
function readWeakly(
  raw: string,
  read: (raw: string, root: JsonNode) => Transcript,
): { t: Transcript; tree: WeakRef<object>[] } {
  const root = parseJsonSpans(raw);
  return { t: read(raw, root), tree: nodesOf(root).map((n) => new WeakRef(n)) };
}

/** How many of the objects behind refs are still held once a collection has run. */
async function held(refs: readonly WeakRef<object>[]): Promise<number> {
  // A WeakRef's target is kept until the job that made it ends.
  await new Promise((r) => setTimeout(r, 0));
  gc();
  return refs.filter((r) => r.deref() !== undefined).length;
}

const anthropic = JSON.stringify({
  model: 'm',
  messages: [
    { role: 'user', content: 'go' },
    { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'ls' } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'a\nb\nc' }] },
  ],
});
const openai = JSON.stringify({
  model: 'm',
  messages: [
    { role: 'user', content: 'go' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'sh', arguments: '{"command":"ls"}' } }],
    },
    { role: 'tool', tool_call_id: 'c1', content: 'a\nb\nc' },
  ],
});
const responses = JSON.stringify({
  model: 'm',
  input: [
    { role: 'user', content: 'go' },
    { type: 'function_call', call_id: 'c1', name: 'sh', arguments: '{"command":"ls"}' },
    { type: 'function_call_output', call_id: 'c1', output: 'a\nb\nc' },
  ],
});

describe('a read request body lets go of its span tree', () => {
  it.each([
    ['anthropic', anthropic, (raw: string, root: JsonNode) => readAnthropic(raw, root, {})],
    ['openai', openai, (raw: string, root: JsonNode) => readOpenAI(raw, root, {})],
    ['responses', responses, (raw: string, root: JsonNode) => readResponses(raw, root, {})],
  ] as const)(
    'a %s transcript holds no node of the tree, and still writes and lays out its body',
    async (_, raw, read) => {
      const { t, tree } = readWeakly(raw, read);
      expect(await held(tree)).toBe(0);
      const id = t.outputs[0]!.id;
      const written = JSON.parse(t.write(new Map([[id, 'short']])));
      expect(JSON.stringify(written)).toContain('"short"');
      expect(t.layout?.()?.outputs).toHaveLength(1);
      expect(t.messageSpan?.(0, 1)).toBe(
        JSON.stringify(JSON.parse(raw).messages?.[0] ?? JSON.parse(raw).input[0]),
      );
    },
  );

  it('an Anthropic transcript still inserts a cache breakpoint after the last block of a message', async () => {
    const { t, tree } = readWeakly(anthropic, (raw, r) => readAnthropic(raw, r, {}));
    expect(await held(tree)).toBe(0);
    const out = JSON.parse(t.write(new Map(), [{ kind: 'cache_breakpoint', messageIndex: 2 }]));
    expect(out.messages[2].content[0].cache_control).toEqual({ type: 'ephemeral' });
    expect(() => t.write(new Map(), [{ kind: 'cache_breakpoint', messageIndex: 0 }])).toThrow(RangeError);
  });
});
