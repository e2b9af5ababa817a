/**
 * The markup pieces of the stats page (html.ts): table cells that carry their --json path, tables
 * with captions and header cells scoped for screen readers, sections, cards, and a chart paired
 * with its table. Every string is escaped here or by the caller before it reaches markup.
 */
import { esc } from './html-escape.js';
import { num, pctText } from './render.js';

/** One table cell: its text, and its --json path when the figure is the report's own. */
export interface Cell {
  text: string;
  key?: string;
  numeric?: boolean;
  cls?: string;
}

export const n = (value: number, key?: string): Cell => ({
  text: num(value),
  numeric: true,
  ...(key ? { key } : {}),
});
export const p = (value: number | null, key?: string): Cell => ({
  text: pctText(value),
  numeric: true,
  ...(key ? { key } : {}),
});
export const t = (text: string, cls?: string): Cell => ({ text, ...(cls ? { cls } : {}) });
/** A figure inside running text. */
export const k = (key: string, text: string) => `<span data-key="${esc(key)}">${esc(text)}</span>`;
/** A count and its noun inside running text: `1 output`, `3 outputs`. */
export const kn = (key: string, count: number, noun: string) =>
  `${k(key, num(count))} ${noun}${count === 1 ? '' : 's'}`;

export function section(id: string, title: string, intro: string, content: string): string {
  return `<section id="${id}" aria-labelledby="${id}-h">
<h2 id="${id}-h">${esc(title)}</h2>
<p class="muted">${intro}</p>
${content}
</section>`;
}

/**
 * A chart with its table beside it (below it for a table too wide to share the row); `what` names
 * the table for a screen reader.
 */
export function pair(chart: string, tableHtml: string, what: string, wide = false): string {
  return `<div class="pair${wide ? ' stacked' : ''}"><figure>${chart}</figure><div class="scroll" tabindex="0" role="region" aria-label="${esc(what)}">${tableHtml}</div></div>`;
}

export function table(caption: string, head: string[], rows: Cell[][], foot?: Cell[]): string {
  const numericCol = head.map((_, i) => rows.some((row) => row[i]?.numeric));
  const th = head
    .map((h, i) => `<th scope="col"${numericCol[i] ? ' class="n"' : ''}>${esc(h)}</th>`)
    .join('');
  const tr = (row: Cell[]) =>
    `<tr>${row
      .map((c, i) => {
        const cls = [c.numeric ? 'n' : '', c.cls ?? ''].filter(Boolean).join(' ');
        const attrs = `${cls ? ` class="${cls}"` : ''}${c.key ? ` data-key="${esc(c.key)}"` : ''}`;
        return i === 0 ? `<th scope="row"${attrs}>${esc(c.text)}</th>` : `<td${attrs}>${esc(c.text)}</td>`;
      })
      .join('')}</tr>`;
  return `<table><caption>${esc(caption)}</caption><thead><tr>${th}</tr></thead><tbody>${rows.map(tr).join('')}</tbody>${foot ? `<tfoot>${tr(foot)}</tfoot>` : ''}</table>`;
}

export function card(title: string, big: string, sub: string): string {
  return `<div class="card"><dt>${esc(title)}</dt><dd class="big">${big}</dd><dd class="muted">${sub}</dd></div>`;
}
