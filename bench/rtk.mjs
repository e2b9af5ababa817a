// rtk parity: every rtk fixture input in ../shared/corpus/commands/rtk that has rtk's own output
// beside it goes through cg (the library, same engine as the CLI) with the command its family
// names; prints tokens in, rtk out and cg out (markers and hints included) per family and overall,
// and the same totals over inputs above 200 tokens. Three profiles, each as cg/rtk ratios beside
// issue 17's figures (1.50 overall, 0.75 above 200 tokens; targets ≤ 1.0 and ≤ 0.7): the default
// (marker + hint), compact markers (CG_MARKER=compact: the marker alone), and compact markers with
// cmdfilter's min_tokens at 10 (small outputs filtered too). Every profile counts its markers.
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const corpus = join(root, '..', 'shared', 'corpus', 'commands', 'rtk');

/** rtk fixture family → the command an agent would have run. */
const KEEP_HYPHEN = new Set(['pre-commit', 'fail2ban-client', 'ansible-playbook', 'spring-boot']);
function commandOf(family) {
  if (family.startsWith('moon_run')) return 'moon run';
  if (KEEP_HYPHEN.has(family)) return family;
  return family.replace('-', ' ');
}

export const PROFILES = [
  ['default (marker + hint)', {}],
  ['compact markers', { store: { marker: 'compact' } }],
  [
    'compact markers, cmdfilter min_tokens 10',
    { store: { marker: 'compact' }, components: { cmdfilter: { min_tokens: 10 } } },
  ],
];

export async function rtkBench(config = {}) {
  if (!existsSync(corpus)) return undefined;
  const { compact, createFsStore } = await import(join(root, 'dist', 'index.js'));
  const { countTokens } = await import('gpt-tokenizer/encoding/o200k_base');
  const count = (t) => countTokens(t, { disallowedSpecial: new Set() });
  const dir = mkdtempSync(join(tmpdir(), 'cg-rtk-'));
  const store = createFsStore({ dir, ttlDays: 1, maxBytes: 1 << 30, compress: true });
  const families = new Map();
  const big = { in: 0, rtk: 0, cg: 0, n: 0 };
  // The floor a marked rewrite cannot beat: rtk's own output plus this input's compact marker, where
  // that is shorter than the input (else the input itself).
  const floor = { all: 0, big: 0 };
  try {
    for (const sub of ['toml_filter_tests', 'snapshot_pairs']) {
      for (const f of readdirSync(join(corpus, sub))
        .filter((n) => n.endsWith('.input.txt'))
        .sort()) {
        const rtkPath = join(corpus, sub, f.replace('.input.txt', '.rtk.txt'));
        if (!existsSync(rtkPath)) continue;
        const family = sub === 'snapshot_pairs' ? 'moon_run' : f.split('__')[0];
        const input = readFileSync(join(corpus, sub, f), 'utf8');
        const rtk = readFileSync(rtkPath, 'utf8');
        const { output } = await compact(input, {
          command: commandOf(family),
          store,
          format: 'text',
          config,
        });
        const row = families.get(family) ?? { in: 0, rtk: 0, cg: 0, n: 0 };
        const t = { in: count(input), rtk: count(rtk), cg: count(output) };
        const key = createHash('sha256').update(input).digest('hex').slice(0, 16);
        const least = Math.min(t.in, t.rtk + count(`\n<<cg:${key}>>`));
        floor.all += least;
        if (t.in > 200) floor.big += least;
        for (const k of ['in', 'rtk', 'cg']) row[k] += t[k];
        row.n++;
        families.set(family, row);
        if (t.in > 200) {
          for (const k of ['in', 'rtk', 'cg']) big[k] += t[k];
          big.n++;
        }
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const total = { in: 0, rtk: 0, cg: 0, n: 0 };
  for (const r of families.values()) for (const k of ['in', 'rtk', 'cg', 'n']) total[k] += r[k];
  return { families, total, big, floor };
}

/** The report as lines: per family (default profile), then overall and > 200 tokens per profile. */
export async function rtkLines() {
  const r = await rtkBench();
  if (!r) return ['rtk parity: corpus not found, skipped'];
  const ratio = (a, b) => (b > 0 ? (a / b).toFixed(2) : '–');
  const profiles = [];
  let compact = r;
  for (const [label, config] of PROFILES) {
    const p = label === PROFILES[0][0] ? r : await rtkBench(config);
    if (label === PROFILES[1][0]) compact = p;
    profiles.push(
      `${label.padEnd(42)} cg/rtk ${ratio(p.total.cg, p.total.rtk)} over ${p.total.n} (issue 17: 1.50; target ≤ 1.0), ${ratio(p.big.cg, p.big.rtk)} over the ${p.big.n} above 200 tokens (0.75; ≤ 0.7)`,
    );
  }
  const pct = (a, b) => (b > 0 ? `${(((b - a) / b) * 100).toFixed(1)}%` : '–');
  const row = (f, x) =>
    `${f.padEnd(22)} ${String(x.n).padStart(5)} ${String(x.in).padStart(10)} ${String(x.rtk).padStart(8)} ${String(x.cg).padStart(8)}`;
  return [
    "rtk parity on rtk's own fixtures (o200k tokens; cg output includes markers and hints)",
    `${'family'.padEnd(22)} ${'files'.padStart(5)} ${'tokens in'.padStart(10)} ${'rtk out'.padStart(8)} ${'cg out'.padStart(8)}`,
    ...[...r.families].sort().map(([f, x]) => row(f, x)),
    `overall: ${r.total.n} inputs, ${r.total.in} tokens in → rtk ${r.total.rtk} (saves ${pct(r.total.rtk, r.total.in)}), cg ${r.total.cg} (saves ${pct(r.total.cg, r.total.in)})`,
    `inputs above 200 tokens: ${r.big.n}, ${r.big.in} in → rtk ${r.big.rtk}, cg ${r.big.cg}${r.big.cg <= r.big.rtk ? ' (cg ≤ rtk)' : ' (cg > rtk)'}`,
    ...profiles,
    `floor with compact markers (rtk's own output + the input's marker, where shorter than the input): ${ratio(r.floor.all, r.total.rtk)} over ${r.total.n}, ${ratio(r.floor.big, r.big.rtk)} above 200 tokens`,
    `compact markers against that floor (issue 31): cg/floor ${ratio(compact.total.cg, r.floor.all)} over ${r.total.n} (target ≤ 1.02), cg/rtk ${ratio(compact.big.cg, compact.big.rtk)} above 200 tokens (target ≤ 0.6)`,
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const line of await rtkLines()) console.log(line);
}
