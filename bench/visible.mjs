// What counts as "visible" in a compacted output, for the benches and the golden tests alike: a line
// is visible when the output holds it verbatim (trailing spaces aside; a line cut in the middle
// counts by its two ends), or when a folded line `[×N] …` stands for it — the folded line with each
// value set ({a|b|+3}, {min..max}) read as "any value" matches the line.
// An error/warning template, for these measures, is independent of cg's own template miner: the
// signal lines of a text grouped by their text with every digit-bearing run of letters and digits
// read as one placeholder.

const SIGNAL =
  /\b(?:errors?|warn(?:ings?)?|fail(?:s|ed|ures?)?|fatal|exceptions?|critical|severe|panic(?:ked)?)\b|[a-z](?:Error|Exception)\b|^\d\d-\d\d [\d:.]+\s+\d+\s+\d+ [EWF] /i;
const CUT = /^(.*)… \(\d+ chars omitted\) …(.*)$/;
const VALUE_SET = /\{[^{}]*(?:\||\.\.)[^{}]*\}/g;
const escapeRe = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export function isSignal(line) {
  return SIGNAL.test(line);
}

export function templateKey(line) {
  return line.replace(/[\w.-]*\d[\w.:/-]*/g, '#');
}

/** An index of an output: its lines, its cut lines and its folded lines as patterns. */
export function visibility(output) {
  const lines = output.split('\n').map((l) => l.replace(/\r$/, '').trimEnd());
  const exact = new Set(lines);
  const cuts = [];
  const folds = [];
  for (const l of lines) {
    const c = CUT.exec(l);
    if (c) cuts.push([c[1], c[2]]);
    const f = /^\[×\d+\] (.*)$/.exec(l);
    if (f) {
      const body = f[1];
      let src = '';
      let last = 0;
      for (const m of body.matchAll(VALUE_SET)) {
        src += `${escapeRe(body.slice(last, m.index))}.+?`;
        last = m.index + m[0].length;
      }
      src += escapeRe(body.slice(last));
      folds.push(new RegExp(`^${src}$`));
    }
  }
  return (line) => {
    const l = line.trimEnd();
    if (exact.has(l)) return true;
    if (cuts.some(([a, b]) => l.startsWith(a) && l.endsWith(b))) return true;
    return folds.some((re) => re.test(l));
  };
}

/** Distinct error/warning templates of an input, and how many of them the output shows. */
export function signalTemplates(input, output) {
  const visible = visibility(output);
  const templates = new Map();
  for (const line of input.split('\n')) {
    if (!isSignal(line)) continue;
    const k = templateKey(line);
    const seen = templates.get(k) ?? false;
    templates.set(k, seen || visible(line));
  }
  let shown = 0;
  for (const v of templates.values()) if (v) shown++;
  return { total: templates.size, shown };
}
