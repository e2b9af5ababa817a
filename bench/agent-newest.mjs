// What the agent preset's filters for the newest turn save on the corpus's Claude Code sessions
// (issue 30 item 2): each session replayed turn by turn (bench/transcripts.mjs's loop) through the
// agent preset as it was — toon, format, dedup, failed_run, mask, extract, cacheinject — and as it
// is now (skeleton and cmdfilter for the newest turn's outputs first), with the host gate for Claude
// Code. Per session: tool tokens summed over every request, the newest turn's outputs as first sent
// (each output counted once, in the turn it arrived), and the turns whose earlier messages all
// stayed identical. Sessions marked "dev" were looked at while the change was made; the others are
// held out (nothing was tuned on any of them).
//   npm run build && node bench/agent-newest.mjs
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { replaySession, sessionFiles, toolTexts } from './transcripts.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { compact, createFsStore } = await import(join(root, 'dist', 'index.js'));
const { countTokens } = await import('gpt-tokenizer/encoding/o200k_base');
const cache = new Map();
const count = async (text) => {
  let n = cache.get(text);
  if (n === undefined) {
    n = countTokens(text, { disallowedSpecial: new Set() });
    cache.set(text, n);
  }
  return n;
};

const BEFORE = 'toon,format,dedup,failed_run,mask,extract,cacheinject';
const DEV = ['spotter_subagent_afc096d_haiku45', 'spotter_websearch_plan_session'];
const VARIANTS = {
  before: { components: BEFORE },
  after: { preset: 'agent', host: 'claude' },
};

const work = mkdtempSync(join(tmpdir(), 'cg-bench-agent-newest-'));
const store = createFsStore({ dir: join(work, 'store'), ttlDays: 14, maxBytes: 1 << 30, compress: true });
const totals = { dev: {}, held: {} };
try {
  console.log(
    'session                                   set   variant  summed tool tokens   newest as sent   stable',
  );
  for (const file of sessionFiles()) {
    const name = file.split('/').pop().replace('.anthropic.json', '');
    const set = DEV.includes(name) ? 'dev' : 'held';
    const body = JSON.parse(readFileSync(file, 'utf8'));
    for (const [variant, options] of Object.entries(VARIANTS)) {
      const dir = join(work, `${variant}-${name}`);
      let newIn = 0;
      let newOut = 0;
      const r = await replaySession(body, {
        run: async (request) => (await compact(request, { ...options, store, session: { dir } })).output,
        count,
        onTurn: async (_k, request, output) => {
          const newest = (b) => toolTexts({ messages: JSON.parse(b).messages.slice(-1) });
          for (const t of newest(request)) newIn += await count(t.text);
          for (const t of newest(output)) newOut += await count(t.text);
        },
      });
      totals[set][variant] ??= { toolIn: 0, toolOut: 0, newIn: 0, newOut: 0 };
      const t = totals[set][variant];
      t.toolIn += r.toolIn;
      t.toolOut += r.toolOut;
      t.newIn += newIn;
      t.newOut += newOut;
      console.log(
        `${name.padEnd(41)} ${set.padEnd(5)} ${variant.padEnd(8)} ${String(r.toolIn).padStart(9)} → ${String(r.toolOut).padStart(8)}` +
          `   ${String(newIn).padStart(6)} → ${String(newOut).padStart(6)}   ${r.stable}/${r.pairs}`,
      );
    }
  }
  const pct = (a, b) => (b === 0 ? '—' : `−${((100 * (b - a)) / b).toFixed(1)} %`);
  for (const [set, byVariant] of Object.entries(totals))
    for (const [variant, t] of Object.entries(byVariant))
      console.log(
        `${set === 'dev' ? 'dev sessions' : 'held-out sessions'} ${variant}: summed ${t.toolIn} → ${t.toolOut} (${pct(t.toolOut, t.toolIn)}), newest as sent ${t.newIn} → ${t.newOut} (${pct(t.newOut, t.newIn)})`,
      );
} finally {
  rmSync(work, { recursive: true, force: true });
}
