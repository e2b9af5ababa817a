import { describe, expect, it } from 'vitest';
import { MARKER_SLOT, type Outcome } from '../../../src/component.js';
import { knee, type SmartcrushConfig, smartcrush } from '../../../src/components/smartcrush.js';
import { context, output } from '../../helpers.js';

async function run(text: string, cfg: Partial<SmartcrushConfig> = {}): Promise<Outcome> {
  return smartcrush.run(output(text), { ...smartcrush.defaults, ...cfg }, context());
}

const uniform = Array.from({ length: 40 }, (_, i) => ({ id: i, kind: 'event', status: 'ok', region: 'eu' }));

describe('smartcrush', () => {
  it('keeps the first 3 and last 2 items of near-identical records, verbatim, then a count line', async () => {
    const text = JSON.stringify(uniform);
    const r = await run(text);
    if (r.kind !== 'rewrite') throw new Error(r.gate);
    const [json, tag] = r.text.split('\n');
    expect(JSON.parse(json!)).toEqual([...uniform.slice(0, 3), ...uniform.slice(38)]);
    expect(tag).toBe(`[5 of 40 items shown] ${MARKER_SLOT}`);
  });

  it('keeps every item with an error signal', async () => {
    const items = uniform.map((x) => ({ ...x }));
    (items[10] as Record<string, unknown>).status = 'failed';
    (items[20] as Record<string, unknown>).error = { message: 'boom' };
    (items[30] as Record<string, unknown>).error = null;
    const r = await run(JSON.stringify(items));
    if (r.kind !== 'rewrite') throw new Error(r.gate);
    expect(JSON.parse(r.text.split('\n')[0]!).map((x: { id: number }) => x.id)).toEqual([
      0, 1, 2, 10, 20, 38, 39,
    ]);
  });

  it('adds the most informative items up to the knee of their coverage curve', async () => {
    // Ten items bring new fields; the rest repeat what is already kept.
    const items = uniform.map((x, i) =>
      i >= 10 && i < 20 ? { ...x, owner: `team-${i}`, zone: `zone-${i}`, tier: `t${i}` } : { ...x },
    );
    const r = await run(JSON.stringify(items));
    if (r.kind !== 'rewrite') throw new Error(r.gate);
    const ids = JSON.parse(r.text.split('\n')[0]!).map((x: { id: number }) => x.id);
    expect(ids).toEqual(expect.arrayContaining([10, 11, 12, 13, 14, 15, 16, 17, 18, 19]));
    expect(ids.length).toBeLessThan(20);
  });

  it("keeps the array's own layout and the object around it", async () => {
    const text = `${JSON.stringify({ total_count: 40, items: uniform }, null, 2)}\n`;
    const r = await run(text);
    if (r.kind !== 'rewrite') throw new Error(r.gate);
    const body = r.text.slice(0, r.text.lastIndexOf('\n['));
    expect(JSON.parse(body)).toEqual({
      total_count: 40,
      items: [...uniform.slice(0, 3), ...uniform.slice(38)],
    });
    expect(body).toContain('\n    {\n      "id": 0,');
    expect(r.text.endsWith(`[5 of 40 items shown] ${MARKER_SLOT}\n`)).toBe(true);
  });

  it('skips what is not a large enough JSON array', async () => {
    expect(await run('not json')).toMatchObject({ kind: 'skip' });
    expect(await run(JSON.stringify(uniform.slice(0, 4)))).toMatchObject({ kind: 'skip' });
    expect(
      await run(JSON.stringify({ a: 1, list: [1, 2, 3, 4, 5, 6], text: 'x'.repeat(500) })),
    ).toMatchObject({
      kind: 'skip',
    });
    expect(await run(JSON.stringify([1, 2, 3, 4, 5, 6]))).toMatchObject({
      kind: 'skip',
      gate: 'under min_tokens',
    });
  });

  it('finds the Kneedle knee of a concave curve, and none on a straight line', () => {
    expect(knee([0, 50, 80, 90, 95, 98, 100])).toBe(2);
    expect(knee([0, 1, 2, 3, 4, 5])).toBe(0);
    expect(knee([0, 10])).toBe(0);
  });
});
