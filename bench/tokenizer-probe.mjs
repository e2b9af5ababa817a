// Preloaded into a benchmarked process: appends a line to $CG_BENCH_TOKENIZER_FILE whenever the
// process imports a tokenizer rank table (the ~0.2–0.4 s load that bounds exist to avoid).
import { register } from 'node:module';

const hook = `
import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const file = process.env.CG_BENCH_TOKENIZER_FILE;
  if (file && specifier.includes('gpt-tokenizer/bpeRanks/')) appendFileSync(file, specifier + '\\n');
  return next(specifier, context);
}`;
register(`data:text/javascript,${encodeURIComponent(hook)}`);
