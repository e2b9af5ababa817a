import { describe, expect, it } from 'vitest';
import { barChart, columnChart, compact, niceTicks } from '../../../src/stats/svg-chart.js';

const text = { id: 'c', title: 'T <1>', desc: 'D & d', axis: 'tokens saved' };

describe('the stats page charts', () => {
  it('put round ticks from 0 to the first at or past the largest value', () => {
    expect(niceTicks(1000)).toEqual([0, 500, 1000]);
    expect(niceTicks(1100)).toEqual([0, 500, 1000, 1500]);
    expect(niceTicks(7)).toEqual([0, 2, 4, 6, 8]);
    expect(niceTicks(0)).toEqual([0, 1]);
    expect([950, 1234, 34_000, 5_600_000].map(compact)).toEqual(['950', '1.2k', '34k', '5.6M']);
  });

  it('draw bars in proportion, the largest reaching the top tick, a negative value as no bar', () => {
    const svg = barChart(
      [
        { label: 'a', value: 1000, text: '1,000' },
        { label: 'b', value: 250, text: '250' },
        { label: 'c', value: -5, text: '-5' },
      ],
      text,
    );
    const widths = [...svg.matchAll(/class="bar"[^>]* width="([\d.]+)"/g)].map((m) => Number(m[1]));
    expect(widths[0]).toBeGreaterThan(0);
    expect(widths[1]! / widths[0]!).toBeCloseTo(0.25, 5);
    expect(widths[2]).toBe(0);
    expect(svg).toContain('<title id="c-title">T &lt;1&gt;</title>');
    expect(svg).toContain('<desc id="c-desc">D &amp; d</desc>');
  });

  it('label columns without overlap: every n-th period under a crowded axis', () => {
    const bars = Array.from({ length: 60 }, (_, i) => ({ label: `2026-01-${i}`, value: i, text: String(i) }));
    const svg = columnChart(bars, { ...text, axisX: 'day' });
    expect(svg.match(/<g class="col">/g)).toHaveLength(60);
    const labels = [...svg.matchAll(/class="tick" x="([\d.]+)" y="2\d\d" text-anchor="middle">/g)].map((m) =>
      Number(m[1]),
    );
    expect(labels.length).toBeGreaterThan(3);
    expect(labels.length).toBeLessThan(12);
    for (let i = 1; i < labels.length; i++) expect(labels[i]! - labels[i - 1]!).toBeGreaterThan(70);
  });
});
