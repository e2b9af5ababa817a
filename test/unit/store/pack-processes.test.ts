/**
 * Packs written by real processes: several at once into one store, and one killed (SIGKILL) in the
 * middle of its batches. Whatever the moment of the kill, the store afterwards holds only whole
 * packs, every original it says it has reads back exact, and a batch that answered holds all of it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { PACK_DIR } from '../../../src/store/fs-pack.js';
import { createFsStore } from '../../../src/store/fs-store.js';
import { keyOf } from '../../../src/store/keys.js';
import { ROOT, tempDir } from '../../helpers.js';

const work = tempDir('cg-pack-proc-');
const bundle = join(work, 'store.mjs');
const writer = join(work, 'writer.mjs');

/** The originals of batch b of writer w: the same for the writer and for the test that checks. */
const batchOf = (w: string, b: number) =>
  Array.from({ length: 200 }, (_, i) => `${w} batch ${b} result ${i} ✓\n`.repeat(3 + ((b * 7 + i) % 60)));

beforeAll(async () => {
  await build({
    entryPoints: [join(ROOT, 'src/store/fs-store.ts')],
    outfile: bundle,
    bundle: true,
    format: 'esm',
    platform: 'node',
    logLevel: 'error',
  });
  // Writes batches of batchOf(name, b) for b = 0.., and says `done b` once a batch answered.
  writeFileSync(
    writer,
    `import { createFsStore } from ${JSON.stringify(bundle)};
const [dir, name, count] = process.argv.slice(2);
const batchOf = ${batchOf.toString()};
const store = createFsStore({ dir, ttlDays: 14, maxBytes: 2 ** 30, compress: true });
for (let b = 0; b < Number(count); b++) {
  const results = await store.putMany(batchOf(name, b).map((original) => ({ original })));
  if (!results.every((r) => r.ok)) { console.error(JSON.stringify(results.find((r) => !r.ok))); process.exit(1); }
  process.stdout.write('done ' + b + '\\n');
}
`,
  );
}, 60_000);

function run(
  dir: string,
  name: string,
  count: number,
): { child: ChildProcess; done: number[]; exit: Promise<number | null> } {
  const child = spawn(process.execPath, [writer, dir, name, String(count)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const done: number[] = [];
  child.stdout!.on('data', (d: Buffer) => {
    for (const m of d.toString().matchAll(/done (\d+)/g)) done.push(Number(m[1]));
  });
  const exit = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  return { child, done, exit };
}

/** Every original of these batches the store holds reads back exact; returns how many it holds. */
async function check(
  dir: string,
  batches: [string, number][],
): Promise<{ held: number; whole: Set<string> }> {
  const store = createFsStore({ dir, ttlDays: 14, maxBytes: 2 ** 30, compress: true });
  let held = 0;
  const whole = new Set<string>();
  for (const [w, b] of batches) {
    const texts = batchOf(w, b);
    const has = await store.hasMany!(texts.map((t) => keyOf(t)));
    let all = true;
    for (const [i, t] of texts.entries()) {
      if (!has[i]) {
        all = false;
        continue;
      }
      held++;
      expect((await store.get(keyOf(t)))?.toString('utf8')).toBe(t);
    }
    if (all) whole.add(`${w}/${b}`);
  }
  return { held, whole };
}

describe('packs written by several processes', () => {
  it('lets three processes write overlapping batches into one store at once, every original readable exact', async () => {
    const dir = join(tempDir('cg-pack-proc-'), 'store');
    // Writers a and b write the same originals (same name), c its own.
    const runs = [run(dir, 'shared', 4), run(dir, 'shared', 4), run(dir, 'own', 4)];
    expect(await Promise.all(runs.map((r) => r.exit))).toEqual([0, 0, 0]);
    const batches: [string, number][] = [0, 1, 2, 3].flatMap((b): [string, number][] => [
      ['shared', b],
      ['own', b],
    ]);
    const { whole } = await check(dir, batches);
    expect(whole.size).toBe(8);
  }, 60_000);

  it('leaves only whole packs and exact originals after a writer is killed mid-batch, and every answered batch whole', async () => {
    const dir = join(tempDir('cg-pack-proc-'), 'store');
    const r = run(dir, 'killed', 1000);
    // Let it answer a few batches, then kill it while it is in the middle of the next ones.
    while (r.done.length < 3) await new Promise((res) => setTimeout(res, 5));
    r.child.kill('SIGKILL');
    await r.exit;
    const answered = [...r.done];
    const tried: [string, number][] = Array.from({ length: answered.length + 3 }, (_, b) => ['killed', b]);
    const { held, whole } = await check(dir, tried);
    for (const b of answered) expect(whole.has(`killed/${b}`)).toBe(true);
    expect(held).toBeGreaterThanOrEqual(answered.length * 200);
    // Every pack under a name is whole: its index reads, and it holds only originals of its batches.
    const packs = existsSync(join(dir, PACK_DIR)) ? readdirSync(join(dir, PACK_DIR)) : [];
    expect(packs.length).toBeGreaterThanOrEqual(answered.length);
    const info = await createFsStore({ dir, ttlDays: 14, maxBytes: 2 ** 30, compress: true }).info();
    expect(info.entries).toBe(held);
  }, 60_000);
});
