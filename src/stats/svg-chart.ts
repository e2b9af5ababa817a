/**
 * Bar charts as inline SVG, drawn by cg so a stats page needs no script and no network to show
 * them: horizontal bars for ranked rows (commands, hosts, recall) and columns for periods of time.
 * Each chart is an image with a title and a description for screen readers, axis labels and ticks,
 * the value as text at each bar, and the full label and value as a tooltip. Colours come from CSS
 * classes (the page's stylesheet sets them for light and dark), never from the chart itself.
 * Pure: figures in, markup out.
 */
import { esc } from './html-escape.js';

export interface Bar {
  label: string;
  value: number;
  /** The value as the page prints it (beside the bar and in its tooltip). */
  text: string;
}

export interface ChartText {
  /** Unique on the page: the chart's title and description are referenced by id. */
  id: string;
  title: string;
  desc: string;
  /** What the value axis measures. */
  axis: string;
}

/** About the width of half a page's column, so text in a chart reads at the page's own size. */
const WIDTH = 560;
const FONT = 12;
/** Longest category label drawn; the tooltip has the rest. */
const LABEL_CHARS = 26;

/** Ranked rows as horizontal bars; `max` fixes the scale (100 for a percentage), `mark` draws a line. */
export function barChart(
  bars: readonly Bar[],
  t: ChartText,
  opts: { max?: number; mark?: { value: number; label: string }; tick?: (n: number) => string } = {},
): string {
  const row = 24;
  const left = 180;
  const right = 80;
  // A marked value gets its label above the plot, clear of the axis label below it.
  const top = opts.mark ? 24 : 8;
  const plotW = WIDTH - left - right;
  const plotH = bars.length * row;
  const height = top + plotH + 44;
  const max = opts.max ?? Math.max(0, ...bars.map((b) => b.value));
  const ticks = niceTicks(max);
  const scaleMax = opts.max ?? ticks[ticks.length - 1]!;
  const x = (v: number) => left + (scaleMax > 0 ? (Math.max(0, v) / scaleMax) * plotW : 0);
  const tick = opts.tick ?? compact;
  const parts: string[] = [];
  for (const v of ticks) {
    const at = x(v).toFixed(1);
    parts.push(
      `<line class="grid" x1="${at}" x2="${at}" y1="${top}" y2="${top + plotH}"/>`,
      `<text class="tick" x="${at}" y="${top + plotH + 16}" text-anchor="middle">${esc(tick(v))}</text>`,
    );
  }
  bars.forEach((b, i) => {
    const y = top + i * row;
    const w = Math.max(0, x(b.value) - left);
    parts.push(
      `<g class="row"><title>${esc(`${b.label}: ${b.text}`)}</title>`,
      `<text class="label" x="${left - 8}" y="${y + row / 2 + FONT / 3}" text-anchor="end">${esc(clipLabel(b.label))}</text>`,
      `<rect class="bar" x="${left}" y="${y + 4}" width="${w.toFixed(1)}" height="${row - 8}" rx="2"/>`,
      `<text class="value" x="${(left + w + 6).toFixed(1)}" y="${y + row / 2 + FONT / 3}">${esc(b.text)}</text></g>`,
    );
  });
  if (opts.mark) {
    const at = x(opts.mark.value).toFixed(1);
    parts.push(
      `<line class="mark" x1="${at}" x2="${at}" y1="${top - 8}" y2="${top + plotH}"/>`,
      `<text class="mark-label" x="${at}" y="${top - 12}" text-anchor="middle">${esc(opts.mark.label)}</text>`,
    );
  }
  parts.push(
    `<line class="axis" x1="${left}" x2="${left + plotW}" y1="${top + plotH}" y2="${top + plotH}"/>`,
    `<line class="axis" x1="${left}" x2="${left}" y1="${top}" y2="${top + plotH}"/>`,
    `<text class="axis-label" x="${left + plotW / 2}" y="${height - 4}" text-anchor="middle">${esc(t.axis)}</text>`,
  );
  return svg(t, height, parts);
}

/** Periods of time as columns, oldest on the left; `axisX` names the period. */
export function columnChart(bars: readonly Bar[], t: ChartText & { axisX: string }): string {
  const left = 64;
  const right = 12;
  const top = 12;
  const plotH = 200;
  const plotW = WIDTH - left - right;
  const height = top + plotH + 56;
  const ticks = niceTicks(Math.max(0, ...bars.map((b) => b.value)));
  const scaleMax = ticks[ticks.length - 1]!;
  const y = (v: number) => top + plotH - (scaleMax > 0 ? (Math.max(0, v) / scaleMax) * plotH : 0);
  const slot = plotW / Math.max(1, bars.length);
  const gap = slot > 6 ? Math.min(slot * 0.2, 8) : 0;
  const parts: string[] = [];
  for (const v of ticks) {
    const at = y(v).toFixed(1);
    parts.push(
      `<line class="grid" x1="${left}" x2="${left + plotW}" y1="${at}" y2="${at}"/>`,
      `<text class="tick" x="${left - 6}" y="${(y(v) + FONT / 3).toFixed(1)}" text-anchor="end">${esc(compact(v))}</text>`,
    );
  }
  // Period labels that fit under the axis without touching: every n-th (digits are ~0.6 em wide).
  const labelW = Math.max(0, ...bars.map((b) => b.label.length)) * FONT * 0.62 + 10;
  const every = Math.max(1, Math.ceil(labelW / slot));
  bars.forEach((b, i) => {
    const x0 = left + i * slot + gap / 2;
    const top0 = y(b.value);
    parts.push(
      `<g class="col"><title>${esc(`${b.label}: ${b.text}`)}</title>`,
      `<rect class="bar" x="${x0.toFixed(1)}" y="${top0.toFixed(1)}" width="${Math.max(1, slot - gap).toFixed(1)}" height="${(top + plotH - top0).toFixed(1)}"/></g>`,
    );
    // The last period is labelled too, unless it would sit on top of the one before.
    const last = i === bars.length - 1 && i % every >= every / 2;
    if (i % every === 0 || last) {
      parts.push(
        `<text class="tick" x="${(x0 + (slot - gap) / 2).toFixed(1)}" y="${top + plotH + 16}" text-anchor="middle">${esc(b.label)}</text>`,
      );
    }
  });
  parts.push(
    `<line class="axis" x1="${left}" x2="${left + plotW}" y1="${top + plotH}" y2="${top + plotH}"/>`,
    `<line class="axis" x1="${left}" x2="${left}" y1="${top}" y2="${top + plotH}"/>`,
    `<text class="axis-label" x="${left + plotW / 2}" y="${height - 18}" text-anchor="middle">${esc(t.axisX)}</text>`,
    `<text class="axis-label" transform="translate(14 ${top + plotH / 2}) rotate(-90)" text-anchor="middle">${esc(t.axis)}</text>`,
  );
  return svg(t, height, parts);
}

function svg(t: ChartText, height: number, parts: string[]): string {
  return [
    `<svg class="chart" role="img" aria-labelledby="${t.id}-title ${t.id}-desc" viewBox="0 0 ${WIDTH} ${height}" width="100%" preserveAspectRatio="xMinYMin meet" font-size="${FONT}">`,
    `<title id="${t.id}-title">${esc(t.title)}</title>`,
    `<desc id="${t.id}-desc">${esc(t.desc)}</desc>`,
    ...parts,
    '</svg>',
  ].join('\n');
}

/** 0 and round steps (1, 2 or 5 × 10^n) up to the first at or past max; [0, 1] for nothing. */
export function niceTicks(max: number, target = 4): number[] {
  if (!(max > 0)) return [0, 1];
  const raw = max / target;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw)!;
  const ticks: number[] = [];
  for (let v = 0; v < max + step / 2; v += step) ticks.push(Math.round(v * 1e6) / 1e6);
  if (ticks[ticks.length - 1]! < max) ticks.push(ticks[ticks.length - 1]! + step);
  return ticks;
}

/** 950, 1.2k, 34k, 5.6M: short tick labels (the exact figures are in the tables). */
export function compact(n: number): string {
  const a = Math.abs(n);
  const short = (v: number, unit: string) => `${Number(v.toFixed(v < 10 ? 1 : 0))}${unit}`;
  if (a >= 1e9) return short(n / 1e9, 'G');
  if (a >= 1e6) return short(n / 1e6, 'M');
  if (a >= 1e3) return short(n / 1e3, 'k');
  return String(Math.round(n * 10) / 10);
}

function clipLabel(label: string): string {
  const chars = [...label];
  return chars.length <= LABEL_CHARS ? label : `${chars.slice(0, LABEL_CHARS - 1).join('')}…`;
}
