/**
 * Host knowledge lives in src/hosts/ (issue 29): each host is one folder and one row of the table in
 * src/hosts/index.ts. A string literal anywhere else in src/ whose whole value is a host's name — cg's
 * name for it, the name runs are recorded under, or a CG_HOST alias ('claude', "codex", `gemini`,
 * 'claude-code' …) — is a place that knows about one host, and fails here. A host mentioned inside a
 * longer text (a help line, a message) or in a comment is fine. The names come from the table
 * itself, so a new host is covered as soon as it has a row; literals are found by TypeScript's own
 * parser, so comments and longer strings never count.
 * `gemini` is also the name of Google's API as a request format and a proxy provider (beside
 * `anthropic`, `openai`, `responses`): in the input readers, the proxy's routing and the model
 * client, where no host is meant, that literal is the API's and is not counted.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { HOSTS } from '../../../src/hosts/index.js';
import { HOST_NAMES } from '../../../src/hosts/names.js';
import { ROOT } from '../../helpers.js';

/** Where a `'gemini'` literal names the Gemini API (format, provider), not Gemini CLI. */
const API_NAMED = /^src\/(input|llm|proxy\/(?!doctor\.ts))/;
const API_LITERAL = /^\d+: (['"`])gemini\1$/;

const NAMES = new Set(HOSTS.flatMap((h) => [h.name, h.stats.name, ...h.stats.aliases]));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** Each string literal (or template without substitutions) whose whole value is a host name: `line: 'name'`. */
function hostLiterals(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) && NAMES.has(node.text)) {
      const { line } = source.getLineAndCharacterOfPosition(node.getStart());
      found.push(`${line + 1}: ${node.getText()}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('host names in src/', () => {
  it('are spelled as a whole string literal only in src/hosts/', () => {
    const found: string[] = [];
    for (const file of sources(join(ROOT, 'src'))) {
      const rel = relative(ROOT, file);
      if (rel.startsWith('src/hosts/')) continue;
      for (const hit of hostLiterals(rel, readFileSync(file, 'utf8')))
        if (!(API_NAMED.test(rel) && API_LITERAL.test(hit))) found.push(`${rel}:${hit}`);
    }
    expect(found, 'host knowledge goes in the host folder under src/hosts/').toEqual([]);
  });

  it('are found in every spelling, and not in comments or inside longer texts', () => {
    const sample = [
      "const a = 'claude';",
      'const b = "codex";',
      'const c = `gemini`;',
      "type D = 'claude-code' | 'other';",
      "if (x === 'gemini-cli') f();",
      "// 'codex' in a comment, and 'Claude Code' or 'cg init claude' in a longer text",
      "const e = 'cg hook codex answers PreToolUse';",
      'const f = `$' + '{host}`;',
    ].join('\n');
    expect(hostLiterals('sample.ts', sample)).toEqual([
      "1: 'claude'",
      '2: "codex"',
      '3: `gemini`',
      "4: 'claude-code'",
      "5: 'gemini-cli'",
    ]);
  });

  it('cover every host of the table, by the names the CLI offers', () => {
    expect(HOSTS.map((h) => h.name)).toEqual([...HOST_NAMES]);
    for (const h of HOSTS) expect(h.stats.aliases).toContain(h.stats.name);
  });
});
