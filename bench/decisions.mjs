// How many hook calls are decided without the tokenizer (issue 15 item 6): `cg hook claude` on a
// PostToolUse Bash payload for every corpus text a hook would compact (../shared/corpus: the
// command outputs, the logs, and the tool results of the real Claude Code and agent sessions that
// are 1,024 characters or more — below that the hook answers at once). For each: did cg change it,
// and did it load a tokenizer rank table? CG_BENCH_BIN picks another build for an A/B run.
//   node bench/decisions.mjs [limit]
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const corpus = join(here, '..', '..', 'shared', 'corpus');

function* files(dir) {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* files(path);
    else yield path;
  }
}

/** Tool-result texts of a request body: Anthropic tool_result blocks, OpenAI tool messages. */
function toolResults(body) {
  const out = [];
  for (const m of body.messages ?? []) {
    if (m.role === 'tool' && typeof m.content === 'string') out.push(m.content);
    for (const b of Array.isArray(m.content) ? m.content : []) {
      if (b?.type !== 'tool_result') continue;
      if (typeof b.content === 'string') out.push(b.content);
      else for (const c of b.content ?? []) if (c?.type === 'text') out.push(c.text);
    }
  }
  return out;
}

/** [label, command, text] for every corpus text a hook would try to compact. */
export function corpusTexts() {
  if (!existsSync(corpus)) return [];
  const texts = [];
  for (const path of files(join(corpus, 'commands'))) {
    if (/\.md$|LICENSE/.test(path)) continue;
    texts.push([
      `commands/${basename(path)}`,
      basename(path).replace(/\.[a-z]+$/, ''),
      readFileSync(path, 'utf8'),
    ]);
  }
  for (const path of files(join(corpus, 'logs')))
    if (path.endsWith('.log'))
      texts.push([`logs/${basename(path)}`, `cat ${basename(path)}`, readFileSync(path, 'utf8')]);
  for (const path of files(join(corpus, 'transcripts'))) {
    if (!/\.(anthropic|openai)\.json$/.test(path)) continue;
    for (const [i, t] of toolResults(JSON.parse(readFileSync(path, 'utf8'))).entries())
      texts.push([`${basename(path)}#${i}`, undefined, t]);
  }
  return texts.filter(([, , t]) => t.length >= 1024 && !t.includes('\u0000'));
}

export function decisionLines({
  bin = process.env.CG_BENCH_BIN ?? join(here, '..', 'bin', 'cg.js'),
  limit,
} = {}) {
  const texts = corpusTexts().slice(0, limit);
  if (texts.length === 0) return ['Hook decisions: no ../shared/corpus here, skipped'];
  const work = mkdtempSync(join(tmpdir(), 'cg-bench-decisions-'));
  const env = {
    ...process.env,
    CG_STORE_DIR: join(work, 'store'),
    CG_STATE_DIR: join(work, 'state'),
    XDG_CONFIG_HOME: join(work, 'cfg'),
    CG_BENCH_TOKENIZER_FILE: join(work, 'tokenizer'),
  };
  delete env.CG_DISABLE;
  let changed = 0;
  let loaded = 0;
  let changedLoaded = 0;
  try {
    for (const [, command, stdout] of texts) {
      rmSync(env.CG_BENCH_TOKENIZER_FILE, { force: true });
      const payload = JSON.stringify({
        session_id: 'bench',
        cwd: work,
        hook_event_name: 'PostToolUse',
        tool_name: 'Bash',
        tool_input: { command: command ?? 'cat output.txt' },
        tool_response: { stdout, stderr: '', interrupted: false, isImage: false },
      });
      const r = spawnSync(
        process.execPath,
        ['--import', join(here, 'tokenizer-probe.mjs'), bin, 'hook', 'claude'],
        {
          input: payload,
          env,
          maxBuffer: 1 << 28,
        },
      );
      if (r.status !== 0) throw new Error(`cg hook claude exited ${r.status}: ${r.stderr}`);
      const did = r.stdout.length > 0;
      const tok = existsSync(env.CG_BENCH_TOKENIZER_FILE);
      changed += did ? 1 : 0;
      loaded += tok ? 1 : 0;
      changedLoaded += did && tok ? 1 : 0;
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  const n = texts.length;
  const pct = (x) => `${((100 * x) / n).toFixed(0)} %`;
  return [
    `Hook decisions on ${n} corpus texts of ≥ 1,024 chars (cg hook claude, PostToolUse Bash):`,
    `  compacted ${changed}; decided without the tokenizer ${n - loaded} (${pct(n - loaded)}); loaded it ${loaded} (${changedLoaded} of them compacted)`,
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const limit = process.argv[2] ? Number(process.argv[2]) : undefined;
  for (const line of decisionLines({ ...(limit ? { limit } : {}) })) console.log(line);
}
