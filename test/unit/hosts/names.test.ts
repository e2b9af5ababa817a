/**
 * Host knowledge lives in src/hosts/ (issue 29): a host's name spelled as a string literal
 * ('claude', 'codex', 'gemini', 'claude-code') anywhere else in src/ is a place that knows about
 * one host. The files that still do are listed with how many they hold, and the list may only
 * shrink: a new file or one more literal fails here, and a file that has moved its literals out
 * must be taken off the list (so the ratchet follows the moves into the host folders).
 * `gemini` is also the name of Google's API as a request format and a proxy provider (beside
 * `anthropic`, `openai`, `responses`): in the input readers, the proxy's routing and the model
 * client, where no host is meant, that literal is the API's and is not counted.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../helpers.js';

const STILL_SPELLED: Readonly<Record<string, number>> = {
  'src/commands/doctor.ts': 4,
  'src/commands/hook.ts': 6,
  'src/commands/init.ts': 9,
  'src/hook/codex-policy.ts': 5,
  'src/hook/codex-rewrite.ts': 2,
  'src/hook/protocol.ts': 3,
  'src/proxy/doctor.ts': 4,
  'src/stats/hosts.ts': 10,
};

const LITERAL = /(['"`])(claude|codex|gemini|claude-code)\1/g;

/** Where a `'gemini'` literal names the Gemini API (format, provider), not Gemini CLI. */
const API_NAMED = /^src\/(input|llm|proxy\/(?!doctor\.ts))/;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

describe('host names in src/', () => {
  it('are spelled only in src/hosts/, and in no more places outside it than the files still listed', () => {
    const found: Record<string, number> = {};
    for (const file of sources(join(ROOT, 'src'))) {
      const rel = relative(ROOT, file);
      if (rel.startsWith('src/hosts/')) continue;
      const literals = readFileSync(file, 'utf8').match(LITERAL) ?? [];
      const n = literals.filter((l) => !(API_NAMED.test(rel) && l.slice(1, -1) === 'gemini')).length;
      if (n > 0) found[rel] = n;
    }
    for (const [file, n] of Object.entries(found))
      expect(
        n,
        `${file} spells a host name ${n} times: host knowledge goes in src/hosts/`,
      ).toBeLessThanOrEqual(STILL_SPELLED[file] ?? 0);
    for (const file of Object.keys(STILL_SPELLED))
      expect(found[file], `${file} no longer spells a host name: take it off STILL_SPELLED`).toBeGreaterThan(
        0,
      );
  });
});
