/**
 * Lazy tree-sitter: web-tree-sitter and a language's grammar are loaded on first use, once per
 * process, and a parser per language is reused. Nothing here runs at import time, so a run that
 * never meets code (`echo hi | cg`) never loads the runtime or a grammar.
 *
 * Grammars come from tree-sitter-wasms, found with require.resolve from this module, so they load
 * from the installed package whether this file runs from src/ (tests) or bundled in dist/.
 * web-tree-sitter is pinned to 0.25.10: newer runtimes refuse these grammars (DESIGN §6).
 *
 * V8 is told to compile WebAssembly with its baseline compiler only (--liftoff-only) before the
 * runtime loads: measured here, optimising tier-up of one grammar's huge lexer made loading the next
 * grammar take 10–90 s instead of 10–50 ms, and parses were no faster with it.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Language, Parser, Tree } from 'web-tree-sitter';
import type { LanguageSpec } from './languages.js';

type TreeSitter = typeof import('web-tree-sitter');

let runtime: Promise<TreeSitter> | undefined;
const grammars = new Map<string, Promise<Language>>();
const parsers = new Map<string, Parser>();

/** How many grammars this process has loaded (for tests of laziness). */
export function loadedGrammars(): number {
  return grammars.size;
}

function loadRuntime(): Promise<TreeSitter> {
  if (!runtime) {
    const p = (async () => {
      try {
        // Imported here, not at the top: a bundle hoists top-level imports into start-up.
        const v8 = await import('node:v8');
        v8.setFlagsFromString('--liftoff-only');
      } catch {
        // Only slower: optimised tiers stay on.
      }
      const mod = await import('web-tree-sitter');
      await mod.Parser.init();
      return mod;
    })();
    runtime = p;
    // A failed load is not cached: the next file may try again (and fail open again).
    p.catch(() => {
      if (runtime === p) runtime = undefined;
    });
  }
  return runtime;
}

function grammarPath(spec: LanguageSpec): string {
  const require = createRequire(import.meta.url);
  const pkg = require.resolve('tree-sitter-wasms/package.json');
  return join(dirname(pkg), 'out', `tree-sitter-${spec.grammar}.wasm`);
}

async function loadLanguage(spec: LanguageSpec): Promise<Language> {
  let p = grammars.get(spec.grammar);
  if (!p) {
    const loading = loadRuntime().then((ts) => ts.Language.load(grammarPath(spec)));
    grammars.set(spec.grammar, loading);
    loading.catch(() => {
      if (grammars.get(spec.grammar) === loading) grammars.delete(spec.grammar);
    });
    p = loading;
  }
  return p;
}

/** Longest a parse may run; tree-sitter parses synchronously, so no outer timer can stop it. */
const PARSE_DEADLINE_MS = 5000;

/**
 * Parses code with the language's grammar; undefined when the parse ran past its deadline (error
 * recovery on text that is not really this language can be slow). The caller must tree.delete().
 */
export async function parse(
  spec: LanguageSpec,
  code: string,
  deadlineMs = PARSE_DEADLINE_MS,
): Promise<Tree | undefined> {
  const language = await loadLanguage(spec);
  let parser = parsers.get(spec.grammar);
  if (!parser) {
    const { Parser } = await loadRuntime();
    parser = new Parser();
    parser.setLanguage(language);
    parsers.set(spec.grammar, parser);
  }
  const stop = performance.now() + deadlineMs;
  const tree = parser.parse(code, null, { progressCallback: () => performance.now() > stop });
  if (!tree) {
    // A cancelled parse would otherwise resume where it stopped on the next call.
    parser.reset();
    return undefined;
  }
  return tree;
}

/**
 * The share of the code that the parser could not read: characters under ERROR nodes (outermost
 * only) plus one per MISSING node, over the code length. A clean parse is 0.
 */
export function errorShare(tree: Tree, length: number): number {
  const root = tree.rootNode;
  if (!root.hasError || length === 0) return 0;
  let bad = 0;
  const cursor = root.walk();
  try {
    let done = false;
    while (!done) {
      const node = cursor.currentNode;
      let descend = node.hasError;
      if (node.isError) {
        bad += node.endIndex - node.startIndex;
        descend = false;
      } else if (node.isMissing) {
        bad += 1;
      }
      if (descend && cursor.gotoFirstChild()) continue;
      while (!cursor.gotoNextSibling()) {
        if (!cursor.gotoParent()) {
          done = true;
          break;
        }
      }
    }
  } finally {
    cursor.delete();
  }
  return Math.min(1, bad / length);
}
