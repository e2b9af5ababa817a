// summarize on real sessions: replays each Claude Code session of the corpus turn by turn through
// `-c summarize` with a stand-in model that answers every summary request with a fixed text of about
// 400 words (a `regular` summary's size), and reports what the policy does: request tokens summed
// over all turns with and without cg, how many model calls the checkpoint needed, how many turns
// kept every earlier message byte-identical (the provider's prompt cache holds), and how many
// characters the model was sent. The summary's content is not measured here: no model runs here.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { replaySession, sessionFiles } from './transcripts.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const SUMMARY = Array.from(
  { length: 40 },
  (_, i) => `Step ${i + 1}: the agent read, ran and edited files toward the task; results noted.`,
).join('\n');

export async function main() {
  const { compact, createFsStore } = await import(join(root, 'dist', 'index.js'));
  const { countTokens } = await import('gpt-tokenizer/encoding/o200k_base');
  const count = (text) => countTokens(text, { disallowedSpecial: new Set() });
  const work = mkdtempSync(join(tmpdir(), 'cg-bench-summarize-'));
  const store = createFsStore({ dir: join(work, 'store'), ttlDays: 14, maxBytes: 1 << 30, compress: true });
  const lines = [
    'summarize replay (stand-in model, fixed ~400-word summary; defaults: trigger 8000 tokens / 8 messages, resummarize 6000)',
  ];
  try {
    for (const file of sessionFiles()) {
      const body = JSON.parse(readFileSync(file, 'utf8'));
      const dir = join(work, `sessions-${lines.length}`);
      let calls = 0;
      let promptChars = 0;
      const model = {
        available: true,
        label: 'bench:fixed',
        async complete(req) {
          calls++;
          promptChars += req.prompt.length;
          return { ok: true, text: SUMMARY };
        },
      };
      let tokensIn = 0;
      let tokensOut = 0;
      const t0 = performance.now();
      const r = await replaySession(body, {
        run: async (request) =>
          (await compact(request, { components: 'summarize', store, session: { dir }, model })).output,
        count: async () => 0,
        onTurn: (_k, request, output) => {
          tokensIn += count(request);
          tokensOut += count(output);
        },
      });
      const ms = performance.now() - t0;
      const saved = tokensIn === 0 ? 0 : (100 * (tokensIn - tokensOut)) / tokensIn;
      lines.push(
        `  ${file.split('/').pop().replace('.anthropic.json', '').padEnd(40)} ${String(r.turns).padStart(4)} turns  ` +
          `request tokens ${String(tokensIn).padStart(10)} → ${String(tokensOut).padStart(10)} (−${saved.toFixed(1)} %)  ` +
          `model calls ${calls}  stable ${r.stable}/${r.pairs}  ` +
          `sent to model ${(promptChars / 1000).toFixed(0)}k chars  ${(ms / r.turns).toFixed(0)} ms/turn`,
      );
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return lines;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const line of await main()) console.log(line);
}
