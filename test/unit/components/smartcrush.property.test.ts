import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MARKER_SLOT } from '../../../src/component.js';
import { knee, smartcrush } from '../../../src/components/smartcrush.js';
import { type JsonArray, type JsonNode, parseJsonSpans } from '../../../src/json/spans.js';
import { context, output } from '../../helpers.js';

/**
 * The choice smartcrush made before its features were interned, written out plainly: the span
 * tree, each item's features as a Set of strings from JSON.parse's value, then greedy maximum
 * coverage (max gain, earliest item on ties) cut at the knee. The component must choose the same
 * items on every input.
 */
function referenceKept(text: string, cfg = smartcrush.defaults): number[] | undefined {
  let root: JsonNode;
  try {
    root = parseJsonSpans(text);
  } catch {
    return undefined;
  }
  let arr: JsonArray | undefined;
  if (root.type === 'array') arr = root;
  else if (root.type === 'object') {
    for (const m of root.members)
      if (m.value.type === 'array' && (!arr || m.value.end - m.value.start > arr.end - arr.start))
        arr = m.value;
    if (arr && (arr.end - arr.start) * 2 <= root.end - root.start) arr = undefined;
  }
  if (!arr || arr.items.length < Math.max(2, cfg.min_items)) return undefined;
  const n = arr.items.length;
  const signal =
    /"(?:error|errors|exception|err|fault|failure)"\s*:\s*(?!null\b|false\b|""|\[\s*\]|\{\s*\}|0\b)|:\s*"(?:error|errored|failed|failure|fatal|critical|exception|crashed|timed[ _-]?out)"|\b(?:Traceback|[A-Z]\w*(?:Error|Exception)):/i;
  const keep = arr.items.map(
    (it, i) => i < cfg.keep_first || i >= n - cfg.keep_last || signal.test(text.slice(it.start, it.end)),
  );
  const feats = arr.items.map((it) => {
    const out = new Set<string>();
    const stack: [unknown, string][] = [[JSON.parse(text.slice(it.start, it.end)), '']];
    for (let job = stack.pop(); job; job = stack.pop()) {
      const [v, key] = job;
      if (Array.isArray(v)) for (const x of v) stack.push([x, key]);
      else if (v !== null && typeof v === 'object')
        for (const [k, x] of Object.entries(v)) stack.push([x, k]);
      else {
        const s = String(v);
        out.add(`${key}=${s.slice(0, 100)}`);
        if (typeof v === 'string' && s.length > 40)
          for (const w of s.toLowerCase().match(/[a-z0-9_]{3,}/g) ?? []) out.add(`${key}~${w}`);
      }
    }
    return out;
  });
  const covered = new Set<string>();
  feats.forEach((f, i) => {
    if (keep[i]) for (const x of f) covered.add(x);
  });
  const gain = (i: number) => [...feats[i]!].filter((x) => !covered.has(x)).length;
  const picks: number[] = [];
  const curve = [0];
  const open = new Set(keep.flatMap((k, i) => (k ? [] : [i])));
  for (;;) {
    let best = -1;
    let bestGain = 0;
    for (const i of open) {
      const g = gain(i);
      if (g > bestGain) [best, bestGain] = [i, g];
    }
    if (best < 0) break;
    open.delete(best);
    picks.push(best);
    for (const x of feats[best]!) covered.add(x);
    curve.push(curve[curve.length - 1]! + bestGain);
  }
  for (const i of picks.slice(0, knee(curve))) keep[i] = true;
  return keep.flatMap((k, i) => (k ? [i] : []));
}

/** Records from small domains, so items share features; some nested, some with long strings. */
const record = fc.record(
  {
    id: fc.integer({ min: 0, max: 40 }),
    state: fc.constantFrom('ok', 'ok', 'failed', 'pending'),
    tags: fc.array(fc.constantFrom('a', 'b', 'c', 7, null, true), { maxLength: 3 }),
    owner: fc.record({
      login: fc.constantFrom('ann', 'bob'),
      n: fc.double({ noNaN: true, noDefaultInfinity: true }),
    }),
    text: fc.constantFrom(
      'short',
      'a long message about the build of module alpha and its tests',
      'é \\" \n',
      'KeyError: x',
      'Traceback:',
    ),
    // Error signals and the values that are not one.
    error: fc.constantFrom(null, false, 0, '', 'disk full', [], {}),
    deep: fc.array(fc.array(fc.constantFrom(1, '1', 1.5e300, -0)), { maxLength: 2 }),
  },
  { requiredKeys: ['id'] },
);

/** Names holding the separators: `{"a=b": "c"}` and `{"a": "b=c"}` have the one feature `a=b=c`. */
const separated = fc.record(
  {
    'a=b': fc.constantFrom('c', 'x'),
    a: fc.constantFrom('b=c', 'y', 'b~c'),
    'a~b': fc.constantFrom('c', 'a long message about the build of module alpha and its tests'),
  },
  { requiredKeys: [] },
);

/** A JSON text of items, pretty or compact, at the root or inside an object; some repeat a key. */
const arrayText = fc
  .tuple(
    fc.array(fc.oneof(record, separated, fc.jsonValue({ maxDepth: 2 })), { minLength: 0, maxLength: 40 }),
    fc.constantFrom(undefined, 2),
    fc.boolean(),
    fc.array(fc.nat(), { maxLength: 3 }),
  )
  .map(([items, indent, wrapped, repeated]) => {
    const texts = items.map((it) => JSON.stringify(it, null, indent));
    // A repeated key: JSON.parse keeps the last value, and so must the features.
    for (const r of repeated)
      if (texts.length > 0) {
        const k = r % texts.length;
        if (texts[k]!.startsWith('{') && texts[k] !== '{}')
          texts[k] = `{"id": "dup${r % 3}", ${texts[k]!.slice(1)}`;
      }
    const array = `[${texts.join(indent ? ',\n' : ',')}]`;
    return wrapped ? `{"total_count": ${items.length}, "items": ${array}}\n` : array;
  });

describe('smartcrush', () => {
  it('keeps exactly the items the plain Set-based greedy keeps, on generated arrays', async () => {
    await fc.assert(
      fc.asyncProperty(arrayText, async (text) => {
        const cfg = { ...smartcrush.defaults, min_tokens: 0 };
        const expected = referenceText(text, cfg);
        const r = await smartcrush.run(output(text), cfg, context());
        expect(r.kind === 'rewrite' ? r.text : undefined).toBe(expected);
      }),
      { numRuns: 400 },
    );
  });
});

describe('smartcrush on words longer than its feature table holds', () => {
  it('keeps what the plain greedy keeps when items share a 70,000-character word', async () => {
    const word = 'w'.repeat(70_000);
    const items = Array.from({ length: 30 }, (_, i) => ({
      id: i % 4,
      text: i % 3 === 0 ? `a ${word} b` : `note ${i % 5} of the run, nothing else to say here`,
    }));
    const text = JSON.stringify(items);
    const cfg = { ...smartcrush.defaults, min_tokens: 0 };
    const r = await smartcrush.run(output(text), cfg, context());
    expect(r.kind).toBe('rewrite');
    expect(r.kind === 'rewrite' ? r.text : undefined).toBe(referenceText(text, cfg));
  });
});

/** The rewrite the reference choice gives (the old component's layout), or undefined for a skip. */
function referenceText(text: string, cfg = smartcrush.defaults): string | undefined {
  const kept = referenceKept(text, cfg);
  if (!kept) return undefined;
  const root = parseJsonSpans(text);
  const arr = (
    root.type === 'array'
      ? root
      : (root as { members: { value: JsonNode }[] }).members.find((m) => m.value.type === 'array')!.value
  ) as JsonArray;
  const items = arr.items;
  const n = items.length;
  if (kept.length === n) return undefined;
  const lead = text.slice(arr.start + 1, items[0]!.start);
  const sep = text.slice(items[0]!.end, items[1]!.start);
  const trail = text.slice(items[n - 1]!.end, arr.end - 1);
  const parts = kept.map((i) => text.slice(items[i]!.start, items[i]!.end));
  const body = `${text.slice(0, arr.start + 1)}${lead}${parts.join(sep)}${trail}${text.slice(arr.end - 1)}`;
  return `${body.replace(/\s+$/, '')}\n[${kept.length} of ${n} items shown] ${MARKER_SLOT}${text.endsWith('\n') ? '\n' : ''}`;
}
