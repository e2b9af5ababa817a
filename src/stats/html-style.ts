/**
 * The stats page's one stylesheet, inlined in the page: light by default, dark when the reader's
 * system prefers it (the colours are variables, the charts' SVG uses the same ones), a chart and
 * its table side by side on a wide window and one above the other on a narrow one. System fonts
 * only: the page loads nothing.
 */
export const PAGE_STYLE = `
:root {
  color-scheme: light dark;
  --bg: #ffffff; --fg: #1f2328; --muted: #59636e; --line: #d1d9e0; --panel: #f6f8fa;
  --bar: #0969da; --mark: #bc4c00; --warn: #9a6700; --good: #1a7f37;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #0d1117; --fg: #e6edf3; --muted: #9198a1; --line: #3d444d; --panel: #151b23;
    --bar: #4493f8; --mark: #f0883e; --warn: #d29922; --good: #3fb950;
  }
}
* { box-sizing: border-box; }
body {
  margin: 0 auto; max-width: 1180px; padding: 24px;
  background: var(--bg); color: var(--fg);
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif;
}
h1 { font-size: 1.7rem; margin: 0 0 4px; }
h2 { font-size: 1.25rem; margin: 0 0 4px; }
p { margin: 4px 0; }
.muted, figcaption, caption { color: var(--muted); }
code { font: 0.92em ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
section { border-top: 1px solid var(--line); padding: 20px 0; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(170px, 1fr)); gap: 12px; margin: 12px 0; }
.card { background: var(--panel); border: 1px solid var(--line); border-radius: 8px; padding: 10px 14px; margin: 0; }
.card dt { color: var(--muted); font-size: 0.85rem; }
.card dd { margin: 0; }
.card .big { font-size: 1.6rem; font-weight: 650; font-variant-numeric: tabular-nums; }
.pair { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 24px; align-items: start; }
.pair.stacked { grid-template-columns: minmax(0, 1fr); }
@media (max-width: 900px) { .pair { grid-template-columns: minmax(0, 1fr); } }
figure { margin: 8px 0 0; }
.scroll { max-height: 420px; overflow: auto; }
table { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums; font-size: 0.92rem; }
caption { text-align: left; font-size: 0.85rem; padding-bottom: 4px; }
th, td { padding: 3px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { text-align: left; font-weight: 600; }
thead th { position: sticky; top: 0; background: var(--bg); }
td.n, th.n { text-align: right; white-space: nowrap; }
td.cmd { overflow-wrap: anywhere; }
.warn { color: var(--warn); }
.empty { color: var(--muted); font-style: italic; }
svg.chart { display: block; width: 100%; max-width: 640px; height: auto; }
svg.chart text { fill: var(--fg); }
svg.chart .tick, svg.chart .axis-label { fill: var(--muted); }
svg.chart .axis-label { font-weight: 600; }
svg.chart .grid { stroke: var(--line); stroke-width: 1; }
svg.chart .axis { stroke: var(--muted); stroke-width: 1; }
svg.chart .bar { fill: var(--bar); }
svg.chart .mark { stroke: var(--mark); stroke-width: 2; stroke-dasharray: 4 3; }
svg.chart .mark-label { fill: var(--mark); }
svg.chart .row:hover .bar, svg.chart .col:hover .bar { opacity: 0.75; }
`;
