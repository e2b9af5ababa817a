// ../../../tmp/proto/gen.ts
import { readFileSync } from "node:fs";
import { parse } from "yaml";

// src/dsl/stages.ts
function splitLines(text) {
  const lines = [];
  let start = 0;
  let n = 0;
  while (start < text.length) {
    const nl = text.indexOf("\n", start);
    const end = nl === -1 ? text.length : nl;
    const cr = end > start && text.charCodeAt(end - 1) === 13;
    lines.push({
      text: text.slice(start, cr ? end - 1 : end),
      eol: nl === -1 ? "" : cr ? "\r\n" : "\n",
      src: ++n
    });
    start = end + 1;
  }
  const first = lines[0]?.eol;
  return { lines, nl: first === "\r\n" ? "\r\n" : "\n", finalNewline: text.endsWith("\n") };
}
function joinLines(doc2) {
  const { lines } = doc2;
  let out2 = "";
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    const eol = l.eol || doc2.nl;
    out2 += l.text + (i < lines.length - 1 || doc2.finalNewline ? eol : "");
  }
  return out2;
}
function mapLines(doc2, fn) {
  let changed = false;
  const lines = [];
  for (const l of doc2.lines) {
    const text = fn(l.text);
    if (text === l.text) {
      lines.push(l);
      continue;
    }
    changed = true;
    if (!text.includes("\n")) {
      lines.push({ text, eol: l.eol, src: 0 });
      continue;
    }
    const parts = text.split("\n");
    parts.forEach((p, i) => {
      lines.push({ text: p, eol: i < parts.length - 1 ? doc2.nl : l.eol, src: 0 });
    });
  }
  return changed ? { ...doc2, lines } : doc2;
}
var ANSI_RE = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[PX^_][^\x1b]*(?:\x1b\\)?|\x1b[@-Z\\-_]|\x9b[0-?]*[ -/]*[@-~]/g;
function stripAnsiText(text) {
  return text.includes("\x1B") || text.includes("\x9B") ? text.replace(ANSI_RE, "") : text;
}
function stripAnsi(doc2) {
  return mapLines(doc2, stripAnsiText);
}
function replaceLines(doc2, rules) {
  if (rules.length === 0) return doc2;
  return mapLines(doc2, (text) => {
    let t = text;
    for (const r of rules) t = r(t);
    return t;
  });
}
function matchOutput(doc2, rules) {
  if (rules.length === 0) return void 0;
  const blob = doc2.lines.map((l) => l.text).join("\n");
  for (const r of rules) {
    if (r.test(blob) && !r.unless?.(blob)) return r.message;
  }
  return void 0;
}
function filterLines(doc2, matches, keep) {
  const lines = doc2.lines.filter((l) => matches(l.text) === keep);
  return lines.length === doc2.lines.length ? doc2 : { ...doc2, lines };
}
function truncateLine(text, max) {
  if (text.length <= max) return text;
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 55296 && c <= 56319 && i + 1 < text.length) i++;
    count++;
  }
  if (count <= max) return text;
  let end = 0;
  for (let k = 0; k < max - 3; k++) {
    const c = text.charCodeAt(end);
    end += c >= 55296 && c <= 56319 && end + 1 < text.length ? 2 : 1;
  }
  return `${text.slice(0, end)}...`;
}
function truncateLines(doc2, max) {
  return mapLines(doc2, (t) => truncateLine(t, max));
}
function omissionText(n) {
  return `... (${n} lines omitted)`;
}
function omission(n, doc2) {
  return { text: omissionText(n), eol: doc2.nl, src: 0, omitted: n };
}
function weight(lines) {
  let n = 0;
  for (const l of lines) n += l.omitted ?? 1;
  return n;
}
function headTail(doc2, head, tail) {
  const h = head ?? 0;
  const t = tail ?? 0;
  if (h + t === 0 || doc2.lines.length <= h + t) return doc2;
  const dropped = doc2.lines.slice(h, doc2.lines.length - t);
  const lines = [
    ...doc2.lines.slice(0, h),
    omission(weight(dropped), doc2),
    ...doc2.lines.slice(doc2.lines.length - t)
  ];
  return { ...doc2, lines };
}
function maxLines(doc2, max) {
  if (doc2.lines.length <= max) return doc2;
  const kept = doc2.lines.slice(0, max);
  let n = weight(doc2.lines.slice(max));
  const last = kept[kept.length - 1];
  if (last?.omitted !== void 0) {
    kept.pop();
    n += last.omitted;
  }
  return { ...doc2, lines: [...kept, omission(n, doc2)] };
}
function onEmpty(doc2, message) {
  if (doc2.lines.some((l) => l.text.trim() !== "")) return doc2;
  return { ...doc2, lines: [{ text: message, eol: doc2.nl, src: 0 }] };
}
function messageDoc(doc2, message) {
  return { ...doc2, lines: [{ text: message, eol: doc2.nl, src: 0 }] };
}
function classify(input, inputLines, doc2) {
  const text = joinLines(doc2);
  if (text === input) return { text, loss: "none" };
  const { lines } = doc2;
  const last = lines[lines.length - 1];
  const k = last?.omitted !== void 0 ? lines.length - 1 : lines.length;
  if (k === 0 || k >= inputLines) return { text, loss: "whole" };
  for (let i = 0; i < k; i++) if (lines[i].src !== i + 1) return { text, loss: "whole" };
  if (last?.omitted !== void 0 && last.omitted !== inputLines - k) {
    const fixed = { ...doc2, lines: [...lines.slice(0, k), omission(inputLines - k, doc2)] };
    return { text: joinLines(fixed), loss: "tail", tailFrom: k + 1 };
  }
  return { text, loss: "tail", tailFrom: k + 1 };
}

// src/dsl/block-stages.ts
var written = (text, doc2) => ({ text, eol: doc2.nl, src: 0 });
function dropSections(doc2, rule) {
  const { lines } = doc2;
  const verdicts = /* @__PURE__ */ new Map();
  const dropLine = new Uint8Array(lines.length);
  lines.forEach((l, i) => {
    const dropped = rule.drop.capture(l.text);
    const kept = dropped === void 0 ? rule.end?.capture(l.text) : void 0;
    const name = dropped ?? kept;
    if (!name) return;
    if (dropped !== void 0) dropLine[i] = 1;
    let list2 = verdicts.get(name);
    if (!list2) verdicts.set(name, list2 = []);
    list2.push({ at: i, drop: dropped !== void 0 });
  });
  if (!dropLine.includes(1)) return doc2;
  const next = /* @__PURE__ */ new Map();
  const verdictAfter = (name, i) => {
    const list2 = verdicts.get(name);
    if (!list2) return false;
    let k = next.get(name) ?? 0;
    while (k < list2.length && list2[k].at < i) k++;
    next.set(name, k);
    return list2[k]?.drop === true;
  };
  const out2 = [];
  let dropping = false;
  lines.forEach((l, i) => {
    if (dropLine[i]) return;
    const started = rule.start.capture(l.text);
    if (started !== void 0) dropping = verdictAfter(started, i);
    else if (rule.end?.test(l.text)) dropping = false;
    if (!dropping) out2.push(l);
  });
  return out2.length === lines.length ? doc2 : { ...doc2, lines: out2 };
}
var isBlank = (l) => l.text.trim() === "";
function dedupeBlocks(doc2, rule) {
  const { lines } = doc2;
  const firsts = /* @__PURE__ */ new Map();
  const drop = new Uint8Array(lines.length);
  const insertAfter = /* @__PURE__ */ new Map();
  for (let i = 0; i < lines.length; i++) {
    if (!rule.start.test(lines[i].text)) continue;
    let end = i + 1;
    while (end < lines.length && !isBlank(lines[end]) && !rule.start.test(lines[end].text)) end++;
    const key = lines[i].text;
    const first = firsts.get(key);
    if (!first) {
      firsts.set(key, { at: locationLine(lines, i, end, rule) ?? end - 1, locations: [], copies: 0 });
    } else {
      const at = locationLine(lines, i, end, rule);
      first.locations.push(at === void 0 ? "?" : rule.location?.capture(lines[at].text) ?? "?");
      first.copies++;
      for (let k = i; k < end; k++) drop[k] = 1;
      if (end < lines.length && isBlank(lines[end])) drop[end] = 1;
    }
    i = end - 1;
  }
  for (const f2 of firsts.values()) {
    if (f2.copies === 0) continue;
    const text = rule.also.replaceAll("$<count>", String(f2.copies)).replaceAll("$<locations>", f2.locations.join(", "));
    insertAfter.set(f2.at, text);
  }
  if (insertAfter.size === 0) return doc2;
  const out2 = [];
  for (let i = 0; i < lines.length; i++) {
    if (!drop[i]) out2.push(lines[i]);
    const also = insertAfter.get(i);
    if (also !== void 0) out2.push(written(also, doc2));
  }
  return { ...doc2, lines: out2 };
}
function locationLine(lines, from, to, rule) {
  if (!rule.location) return void 0;
  for (let k = from; k < to; k++) if (rule.location.test(lines[k].text)) return k;
  return void 0;
}
function limitRuns(doc2, rules) {
  let lines = doc2.lines;
  for (const rule of rules) {
    const out2 = [];
    let i = 0;
    while (i < lines.length) {
      if (!rule.matches.test(lines[i].text)) {
        out2.push(lines[i++]);
        continue;
      }
      let end = i;
      while (end < lines.length && rule.matches.test(lines[end].text)) end++;
      const run = end - i;
      if (run > rule.head + rule.tail) {
        out2.push(...lines.slice(i, i + rule.head));
        out2.push({
          ...written(omissionText(run - rule.head - rule.tail), doc2),
          omitted: run - rule.head - rule.tail
        });
        out2.push(...lines.slice(end - rule.tail, end));
      } else out2.push(...lines.slice(i, end));
      i = end;
    }
    lines = out2;
  }
  return lines.length === doc2.lines.length ? doc2 : { ...doc2, lines };
}
function groupLines(doc2, rules) {
  if (rules.length === 0) return doc2;
  const groups = /* @__PURE__ */ new Map();
  const memberOf = [];
  doc2.lines.forEach((l, i) => {
    const next = doc2.lines[i + 1]?.text;
    const r = rules.findIndex(
      (rule2) => rule2.matches.test(l.text) && !(next !== void 0 && rule2.continued?.test(next))
    );
    if (r === -1) {
      memberOf.push(void 0);
      return;
    }
    const rule = rules[r];
    const id = `${r}\0${rule.matches.expand(l.text, rule.key)}`;
    let g = groups.get(id);
    if (!g) {
      g = { rule, members: [] };
      groups.set(id, g);
    }
    g.members.push(l);
    memberOf.push(g);
  });
  let changed = false;
  const out2 = [];
  const written_ = /* @__PURE__ */ new Set();
  doc2.lines.forEach((l, i) => {
    const g = memberOf[i];
    if (!g || g.members.length < g.rule.minCount) {
      out2.push(l);
      return;
    }
    changed = true;
    if (written_.has(g)) return;
    written_.add(g);
    out2.push(...renderGroup(g, doc2));
  });
  return changed ? { ...doc2, lines: out2 } : doc2;
}
function renderGroup(g, doc2) {
  const { rule, members } = g;
  const first = members[0];
  const header = rule.matches.expand(first.text, rule.header.replaceAll("$<count>", String(members.length)));
  const shown = rule.maxItems === void 0 ? members : members.slice(0, rule.maxItems);
  const items = shown.map((m) => rule.item === void 0 ? m.text : rule.matches.expand(m.text, rule.item));
  const more = members.length - shown.length;
  if (rule.join !== void 0) {
    const list2 = items.join(rule.join) + (more > 0 ? `${items.length > 0 ? rule.join : ""}\u2026 +${more} more` : "");
    return [written(header + list2, doc2)];
  }
  const lines = [written(header, doc2), ...items.map((t) => written(t, doc2))];
  if (more > 0) lines.push(written(`  \u2026 +${more} more`, doc2));
  return lines;
}

// src/errors.ts
var ConfigError = class _ConfigError extends Error {
  constructor(path, reason, file) {
    super(`${file ? `${file}: ` : ""}${path ? `${path}: ` : ""}${reason}`);
    this.path = path;
    this.reason = reason;
    this.file = file;
  }
  path;
  reason;
  file;
  exitCode = 2;
  /** The same error with a longer path prefix (the caller knows where the value sat). */
  under(prefix, file) {
    return new _ConfigError(this.path ? `${prefix}.${this.path}` : prefix, this.reason, file ?? this.file);
  }
};

// src/dsl/regex.ts
var mod;
var loading;
async function loadRe2() {
  if (mod) return;
  loading ??= import("re2js");
  mod = await loading;
}
var cache = /* @__PURE__ */ new Map();
function unsupportedConstruct(pattern) {
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "\\") {
      const n = pattern[i + 1];
      if (n === "Q") {
        const end = pattern.indexOf("\\E", i + 2);
        i = end === -1 ? pattern.length : end + 1;
        continue;
      }
      if (!inClass && n !== void 0) {
        if (n >= "1" && n <= "9") return `a back-reference (\\${n})`;
        if (n === "k" && /[<{']/.test(pattern[i + 2] ?? "")) return "a named back-reference (\\k<\u2026>)";
        if (n === "g" && /[\d{<'-]/.test(pattern[i + 2] ?? "")) return "a back-reference (\\g\u2026)";
      }
      i++;
      continue;
    }
    if (inClass) {
      if (c === "[" && pattern[i + 1] === ":") {
        const end = pattern.indexOf(":]", i + 2);
        if (end !== -1) i = end + 1;
      } else if (c === "]") inClass = false;
      continue;
    }
    if (c === "[") {
      inClass = true;
      if (pattern[i + 1] === "^") i++;
      if (pattern[i + 1] === "]") i++;
      continue;
    }
    if (c === "(" && pattern[i + 1] === "?") {
      const a = pattern[i + 2];
      const b = pattern[i + 3];
      if (a === "=") return "a look-ahead (?=\u2026)";
      if (a === "!") return "a negative look-ahead (?!\u2026)";
      if (a === "<" && b === "=") return "a look-behind (?<=\u2026)";
      if (a === "<" && b === "!") return "a negative look-behind (?<!\u2026)";
      if (a === ">") return "an atomic group (?>\u2026)";
    }
  }
  return void 0;
}
function checkSyntax(pattern, site) {
  const bad = unsupportedConstruct(pattern);
  if (bad) {
    throw new ConfigError(
      site.path,
      `pattern ${JSON.stringify(pattern)} uses ${bad}, which RE2 does not support (filters match in linear time: no look-around, no back-references); use keep_lines_matching/strip_lines_matching or match_output.unless instead`,
      site.file
    );
  }
}
var prefilters = /* @__PURE__ */ new Map();
function mayMatch(pattern, text) {
  const p = prefilters.get(pattern);
  return p === void 0 || p === null || passes(p, text);
}
function passes(p, text) {
  if (typeof p === "string") return text.includes(p);
  if ("and" in p) return p.and.every((q) => passes(q, text));
  return p.or.some((q) => passes(q, text));
}
function compileRegex(pattern, site) {
  const hit = cache.get(pattern);
  if (hit) return hit;
  checkSyntax(pattern, site);
  if (!mod) throw new Error("internal: re2js used before loadRe2()");
  let re;
  try {
    re = mod.RE2JS.compile(pattern, mod.RE2JS.MULTILINE);
  } catch (err) {
    const why = (err instanceof Error ? err.message : String(err)).replace(/^error parsing regexp: /, "");
    throw new ConfigError(
      site.path,
      `pattern ${JSON.stringify(pattern)} is not a valid RE2 regex: ${why}`,
      site.file
    );
  }
  cache.set(pattern, re);
  return re;
}

// src/dsl/compile.ts
function compileFilter(def, opts) {
  const { spec: spec2, file } = def;
  const site = (field) => ({ file, path: `filters.${spec2.name}.${field}` });
  if (opts.eager) for (const [pattern, field] of patternsOf(spec2)) compileRegex(pattern, site(field));
  return {
    name: spec2.name,
    description: spec2.description,
    priority: spec2.priority,
    sourceKind: opts.kind,
    source: file,
    // Getters: a builtin's tests and YAML are read from disk only when asked for (show, verify).
    get tests() {
      return spec2.tests;
    },
    get yaml() {
      return def.yaml;
    },
    matches: (s) => mayMatch(spec2.match, s) && compileRegex(spec2.match, site("match")).test(s),
    run: (text) => runSpec(spec2, site, text)
  };
}
function patternsOf(spec2) {
  const out2 = [[spec2.match, "match"]];
  spec2.replace.forEach((r, i) => {
    out2.push([r.pattern, `replace[${i}].pattern`]);
  });
  spec2.match_output.forEach((r, i) => {
    out2.push([r.pattern, `match_output[${i}].pattern`]);
    if (r.unless !== void 0) out2.push([r.unless, `match_output[${i}].unless`]);
  });
  const sections = spec2.drop_sections;
  if (sections) {
    out2.push([sections.start, "drop_sections.start"], [sections.drop, "drop_sections.drop"]);
    if (sections.end !== void 0) out2.push([sections.end, "drop_sections.end"]);
  }
  const blocks = spec2.dedupe_blocks;
  if (blocks) {
    out2.push([blocks.start, "dedupe_blocks.start"]);
    if (blocks.location !== void 0) out2.push([blocks.location, "dedupe_blocks.location"]);
  }
  spec2.limit_runs.forEach((r, i) => {
    out2.push([r.pattern, `limit_runs[${i}].pattern`]);
  });
  spec2.group_lines.forEach((g, i) => {
    out2.push([g.pattern, `group_lines[${i}].pattern`]);
    if (g.continued !== void 0) out2.push([g.continued, `group_lines[${i}].continued`]);
  });
  const field = spec2.strip_lines_matching ? "strip_lines_matching" : "keep_lines_matching";
  (spec2.strip_lines_matching ?? spec2.keep_lines_matching ?? []).forEach((p, i) => {
    out2.push([p, `${field}[${i}]`]);
  });
  return out2;
}
var blobOf = (doc2) => doc2.lines.map((l) => l.text).join("\n");
function lineMatcher(pattern, site, field) {
  const re = compileRegex(pattern, site(field));
  const groups = re.groupCount();
  return {
    test: (line) => re.test(line),
    capture: (line) => {
      const m = re.matcher(line);
      if (!m.find()) return void 0;
      return (groups > 0 ? m.group(1) : m.group(0)) ?? "";
    },
    expand: (line, replacement) => re.matcher(line).replaceFirst(replacement)
  };
}
function sectionStages(spec2, site, start) {
  let doc2 = start;
  const m = (pattern, field) => lineMatcher(pattern, site, field);
  const sections = spec2.drop_sections;
  if (sections) {
    const rule = {
      start: m(sections.start, "drop_sections.start"),
      drop: m(sections.drop, "drop_sections.drop")
    };
    if (sections.end !== void 0) rule.end = m(sections.end, "drop_sections.end");
    doc2 = dropSections(doc2, rule);
  }
  const blocks = spec2.dedupe_blocks;
  if (blocks) {
    const rule = { start: m(blocks.start, "dedupe_blocks.start"), also: blocks.also };
    if (blocks.location !== void 0) rule.location = m(blocks.location, "dedupe_blocks.location");
    doc2 = dedupeBlocks(doc2, rule);
  }
  return doc2;
}
function runStages(spec2, site, start) {
  let doc2 = start;
  const m = (pattern, field) => lineMatcher(pattern, site, field);
  if (spec2.limit_runs.length > 0) {
    const rules = spec2.limit_runs.map(
      (r, i) => ({ matches: m(r.pattern, `limit_runs[${i}].pattern`), head: r.head, tail: r.tail })
    );
    doc2 = limitRuns(doc2, rules);
  }
  if (spec2.group_lines.length > 0) {
    const rules = spec2.group_lines.map((g, i) => {
      const rule = {
        matches: m(g.pattern, `group_lines[${i}].pattern`),
        key: g.key,
        header: g.header,
        minCount: g.min_count
      };
      if (g.item !== void 0) rule.item = g.item;
      if (g.max_items !== void 0) rule.maxItems = g.max_items;
      if (g.join !== void 0) rule.join = g.join;
      if (g.continued !== void 0) rule.continued = m(g.continued, `group_lines[${i}].continued`);
      return rule;
    });
    doc2 = groupLines(doc2, rules);
  }
  return doc2;
}
function runSpec(spec2, site, input) {
  const start = splitLines(input);
  const total = start.lines.length;
  let doc2 = start;
  if (spec2.strip_ansi) doc2 = stripAnsi(doc2);
  if (spec2.replace.length > 0) {
    const text = doc2 === start ? input : joinLines(doc2);
    const rules = [];
    spec2.replace.forEach((r, i) => {
      if (rules.length === 0 && !mayMatch(r.pattern, text)) return;
      const re = compileRegex(r.pattern, site(`replace[${i}].pattern`));
      rules.push((line) => re.test(line) ? re.matcher(line).replaceAll(r.replacement) : line);
    });
    doc2 = replaceLines(doc2, rules);
  }
  if (spec2.match_output.length > 0) {
    const test = (pattern, field) => (blob) => mayMatch(pattern, blob) && compileRegex(pattern, site(field)).test(blob);
    const rules = spec2.match_output.map((r, i) => {
      const rule = { test: test(r.pattern, `match_output[${i}].pattern`), message: r.message };
      if (r.unless !== void 0) rule.unless = test(r.unless, `match_output[${i}].unless`);
      return rule;
    });
    const message = matchOutput(doc2, rules);
    if (message !== void 0) return classify(input, total, messageDoc(doc2, message));
  }
  doc2 = sectionStages(spec2, site, doc2);
  const list2 = spec2.strip_lines_matching ?? spec2.keep_lines_matching;
  if (list2) {
    const field = spec2.strip_lines_matching ? "strip_lines_matching" : "keep_lines_matching";
    const blob = blobOf(doc2);
    const res = list2.flatMap((p, i) => mayMatch(p, blob) ? [compileRegex(p, site(`${field}[${i}]`))] : []);
    doc2 = filterLines(doc2, (line) => res.some((re) => re.test(line)), spec2.keep_lines_matching !== void 0);
  }
  doc2 = runStages(spec2, site, doc2);
  if (spec2.truncate_lines_at !== void 0) doc2 = truncateLines(doc2, spec2.truncate_lines_at);
  if (spec2.head_lines !== void 0 || spec2.tail_lines !== void 0) {
    doc2 = headTail(doc2, spec2.head_lines, spec2.tail_lines);
  }
  if (spec2.max_lines !== void 0) doc2 = maxLines(doc2, spec2.max_lines);
  if (spec2.on_empty !== void 0) doc2 = onEmpty(doc2, spec2.on_empty);
  return classify(input, total, doc2);
}

// src/validate.ts
function describe(v) {
  if (v === null) return "null";
  if (Array.isArray(v)) return "a list";
  if (typeof v === "object") return "a mapping";
  if (typeof v === "string") return JSON.stringify(v);
  return String(v);
}

// src/dsl/schema.ts
var SCHEMA_VERSION = 1;
var TOP_FIELDS = ["schema_version", "filters"];
var FILTER_FIELDS = [
  "description",
  "match",
  "priority",
  "strip_ansi",
  "replace",
  "match_output",
  "drop_sections",
  "dedupe_blocks",
  "limit_runs",
  "group_lines",
  "strip_lines_matching",
  "keep_lines_matching",
  "truncate_lines_at",
  "head_lines",
  "tail_lines",
  "max_lines",
  "on_empty",
  "tests"
];
var REPLACE_FIELDS = ["pattern", "replacement"];
var MATCH_OUTPUT_FIELDS = ["pattern", "message", "unless"];
var TEST_FIELDS = ["name", "input", "expected", "command"];
var SECTIONS_FIELDS = ["start", "end", "drop"];
var BLOCKS_FIELDS = ["start", "location", "also"];
var RUN_FIELDS = ["pattern", "head", "tail"];
var GROUP_FIELDS = ["pattern", "key", "header", "item", "max_items", "join", "min_count", "continued"];
var COUNT_CAPTURE = /\(\?P?<count>/;
var DEFAULT_ALSO = "  (also at $<locations>)";
var NAME_RE = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
function validateDocument(raw, file) {
  const at = (path, reason) => new ConfigError(path, reason, file);
  if (raw === null || raw === void 0)
    throw at("", "empty filter file (expected schema_version: 1 and filters:)");
  const top = fields(raw, "", TOP_FIELDS, at);
  if (top.schema_version !== SCHEMA_VERSION) {
    throw at(
      "schema_version",
      top.schema_version === void 0 ? `missing (this cg reads schema_version: ${SCHEMA_VERSION})` : `expected ${SCHEMA_VERSION}, got ${describe(top.schema_version)}`
    );
  }
  if (top.filters === void 0) throw at("filters", "missing (a mapping of filter name \u2192 filter)");
  if (!isMapping(top.filters))
    throw at("filters", `expected a mapping of name \u2192 filter, got ${describe(top.filters)}`);
  return Object.entries(top.filters).map(([name, body2]) => validateFilter(name, body2, file));
}
function validateFilter(name, raw, file) {
  const base = `filters.${name}`;
  const at = (path, reason) => new ConfigError(path ? `${base}.${path}` : base, reason, file);
  if (!NAME_RE.test(name)) {
    throw at(
      "",
      'a filter name is letters, digits, "_", "-" or "." (at most 64, starting with a letter or digit)'
    );
  }
  const f2 = fields(raw, "", FILTER_FIELDS, at);
  const pattern = (v, path) => {
    const p = str(v, path, at);
    checkSyntax(p, { file, path: `${base}.${path}` });
    return p;
  };
  const patterns = (v, path) => {
    if (v === void 0) return void 0;
    if (!Array.isArray(v)) throw at(path, `expected a list of regexes, got ${describe(v)}`);
    return v.map((p, i) => pattern(p, `${path}[${i}]`));
  };
  if (f2.match === void 0)
    throw at("match", 'missing (a regex tested against the selector "$ <command>" + first output lines)');
  const spec2 = {
    name,
    description: f2.description === void 0 ? "" : str(f2.description, "description", at),
    match: pattern(f2.match, "match"),
    priority: f2.priority === void 0 ? 0 : int(f2.priority, "priority", -1e4, 1e4, at),
    strip_ansi: f2.strip_ansi === void 0 ? false : bool(f2.strip_ansi, "strip_ansi", at),
    replace: list(f2.replace, "replace", at).map((r, i) => {
      const p = `replace[${i}]`;
      const m = fields(r, p, REPLACE_FIELDS, at);
      if (m.pattern === void 0) throw at(`${p}.pattern`, "missing");
      if (m.replacement === void 0) throw at(`${p}.replacement`, 'missing (use "" to delete the match)');
      return {
        pattern: pattern(m.pattern, `${p}.pattern`),
        replacement: str(m.replacement, `${p}.replacement`, at)
      };
    }),
    match_output: list(f2.match_output, "match_output", at).map((r, i) => {
      const p = `match_output[${i}]`;
      const m = fields(r, p, MATCH_OUTPUT_FIELDS, at);
      if (m.pattern === void 0) throw at(`${p}.pattern`, "missing");
      if (m.message === void 0) throw at(`${p}.message`, "missing");
      const message = str(m.message, `${p}.message`, at);
      if (message.trim() === "")
        throw at(`${p}.message`, "must not be empty (the whole output is replaced by it)");
      return {
        pattern: pattern(m.pattern, `${p}.pattern`),
        message,
        ...m.unless !== void 0 ? { unless: pattern(m.unless, `${p}.unless`) } : {}
      };
    }),
    limit_runs: list(f2.limit_runs, "limit_runs", at).map((r, i) => {
      const p = `limit_runs[${i}]`;
      const m = fields(r, p, RUN_FIELDS, at);
      if (m.pattern === void 0) throw at(`${p}.pattern`, "missing");
      return {
        pattern: pattern(m.pattern, `${p}.pattern`),
        head: m.head === void 0 ? 0 : int(m.head, `${p}.head`, 0, 1e6, at),
        tail: m.tail === void 0 ? 0 : int(m.tail, `${p}.tail`, 0, 1e6, at)
      };
    }),
    group_lines: list(f2.group_lines, "group_lines", at).map((r, i) => {
      const p = `group_lines[${i}]`;
      const m = fields(r, p, GROUP_FIELDS, at);
      if (m.pattern === void 0) throw at(`${p}.pattern`, "missing");
      if (m.header === void 0)
        throw at(`${p}.header`, "missing (the line written for the group; $<count> is its size)");
      const re = pattern(m.pattern, `${p}.pattern`);
      if (COUNT_CAPTURE.test(re))
        throw at(`${p}.pattern`, "a capture may not be named count ($<count> is the group size)");
      const g = {
        pattern: re,
        key: m.key === void 0 ? "$1" : str(m.key, `${p}.key`, at),
        header: str(m.header, `${p}.header`, at),
        min_count: m.min_count === void 0 ? 2 : int(m.min_count, `${p}.min_count`, 1, 1e6, at)
      };
      if (m.item !== void 0) g.item = str(m.item, `${p}.item`, at);
      if (m.max_items !== void 0) g.max_items = int(m.max_items, `${p}.max_items`, 0, 1e6, at);
      if (m.join !== void 0) g.join = str(m.join, `${p}.join`, at);
      if (m.continued !== void 0) g.continued = pattern(m.continued, `${p}.continued`);
      return g;
    }),
    tests: []
  };
  if (f2.drop_sections !== void 0) {
    const m = fields(f2.drop_sections, "drop_sections", SECTIONS_FIELDS, at);
    if (m.start === void 0)
      throw at("drop_sections.start", "missing (the line that opens a section; capture 1 names it)");
    if (m.drop === void 0)
      throw at("drop_sections.drop", "missing (the line naming a section to drop, by capture 1)");
    spec2.drop_sections = {
      start: pattern(m.start, "drop_sections.start"),
      drop: pattern(m.drop, "drop_sections.drop"),
      ...m.end !== void 0 ? { end: pattern(m.end, "drop_sections.end") } : {}
    };
  }
  if (f2.dedupe_blocks !== void 0) {
    const m = fields(f2.dedupe_blocks, "dedupe_blocks", BLOCKS_FIELDS, at);
    if (m.start === void 0) throw at("dedupe_blocks.start", "missing (the line that opens a block)");
    spec2.dedupe_blocks = {
      start: pattern(m.start, "dedupe_blocks.start"),
      also: m.also === void 0 ? DEFAULT_ALSO : str(m.also, "dedupe_blocks.also", at),
      ...m.location !== void 0 ? { location: pattern(m.location, "dedupe_blocks.location") } : {}
    };
  }
  const strip = patterns(f2.strip_lines_matching, "strip_lines_matching");
  const keep = patterns(f2.keep_lines_matching, "keep_lines_matching");
  if (strip && keep) {
    throw at(
      "keep_lines_matching",
      "strip_lines_matching and keep_lines_matching cannot both be set (use one)"
    );
  }
  if (strip) spec2.strip_lines_matching = strip;
  if (keep) spec2.keep_lines_matching = keep;
  if (f2.truncate_lines_at !== void 0)
    spec2.truncate_lines_at = int(f2.truncate_lines_at, "truncate_lines_at", 4, 1e6, at);
  if (f2.head_lines !== void 0) spec2.head_lines = int(f2.head_lines, "head_lines", 1, 1e6, at);
  if (f2.tail_lines !== void 0) spec2.tail_lines = int(f2.tail_lines, "tail_lines", 1, 1e6, at);
  if (f2.max_lines !== void 0) spec2.max_lines = int(f2.max_lines, "max_lines", 1, 1e6, at);
  if (f2.on_empty !== void 0) spec2.on_empty = str(f2.on_empty, "on_empty", at);
  const seen = /* @__PURE__ */ new Set();
  spec2.tests = list(f2.tests, "tests", at).map((t, i) => {
    const p = `tests[${i}]`;
    const m = fields(t, p, TEST_FIELDS, at);
    for (const k of ["name", "input", "expected"])
      if (m[k] === void 0) throw at(`${p}.${k}`, "missing");
    const test = {
      name: str(m.name, `${p}.name`, at),
      input: str(m.input, `${p}.input`, at),
      expected: str(m.expected, `${p}.expected`, at)
    };
    if (m.command !== void 0) test.command = str(m.command, `${p}.command`, at);
    if (seen.has(test.name)) throw at(`${p}.name`, `duplicate test name ${JSON.stringify(test.name)}`);
    seen.add(test.name);
    return test;
  });
  return spec2;
}
function isMapping(v) {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
function fields(raw, path, allowed, at) {
  if (!isMapping(raw)) throw at(path, `expected a mapping, got ${describe(raw)}`);
  for (const key of Object.keys(raw)) {
    if (allowed.includes(key)) continue;
    const near = closest(key, allowed);
    throw at(
      path ? `${path}.${key}` : key,
      `unknown field${near ? ` (did you mean ${near}?)` : ""} (known: ${allowed.join(", ")})`
    );
  }
  return raw;
}
function list(v, path, at) {
  if (v === void 0 || v === null) return [];
  if (!Array.isArray(v)) throw at(path, `expected a list, got ${describe(v)}`);
  return v;
}
function str(v, path, at) {
  if (typeof v !== "string") throw at(path, `expected a string, got ${describe(v)}`);
  return v;
}
function bool(v, path, at) {
  if (typeof v !== "boolean") throw at(path, `expected true or false, got ${describe(v)}`);
  return v;
}
function int(v, path, min, max, at) {
  if (typeof v !== "number" || !Number.isInteger(v) || v < min || v > max) {
    throw at(path, `expected an integer in ${min}..${max}, got ${describe(v)}`);
  }
  return v;
}
function closest(key, allowed) {
  let best;
  let bestD = 3;
  for (const a of allowed) {
    const d = distance(key, a);
    if (d < bestD) {
      bestD = d;
      best = a;
    }
  }
  return best;
}
function distance(a, b) {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cur = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = cur;
    }
  }
  return row[b.length];
}

// ../../../tmp/proto/gen.ts
await loadRe2();
var spec = parse(readFileSync(process.argv[2], "utf8"));
var body = spec.filter;
var doc = parse(`schema_version: 1
filters:
  ${spec.name}:
${body.replace(/^/gm, "    ")}`);
var [fs] = validateDocument(doc, "gen");
var f = compileFilter({ spec: fs, file: "gen", yaml: "" }, { kind: "builtin", eager: true });
function block(text, indent) {
  if (/[\x00-\x08\x0b-\x1f\x7f]/.test(text.replace(/\t/g, "")) || text.includes("\r")) return JSON.stringify(text);
  const body2 = text.endsWith("\n") ? text.slice(0, -1) : text;
  const ind = body2.startsWith(" ") || body2.startsWith("\n") ? "2" : "";
  const chomp = text.endsWith("\n") ? "" : "-";
  if (body2 === "") return '""';
  return `|${ind}${chomp}
${body2.split("\n").map((l) => l === "" ? "" : indent + l).join("\n")}`;
}
var out = `  ${spec.name}:
${body.replace(/^/gm, "    ").replace(/\s+$/, "")}
    tests:
`;
for (const t of spec.tests) {
  let input = readFileSync(t.input, "utf8");
  if (t.slice) input = input.split("\n").slice(t.slice[0], t.slice[1]).join("\n") + "\n";
  const r = f.run(input);
  out += `      - name: ${JSON.stringify(t.name)}
`;
  if (t.command) out += `        command: ${JSON.stringify(t.command)}
`;
  out += `        input: ${block(input, "          ")}
`;
  out += `        expected: ${block(r.text, "          ")}
`;
  console.error(`${t.name}: ${input.length} -> ${r.text.length} bytes, loss ${r.loss}`);
}
process.stdout.write(out);
