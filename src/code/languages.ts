/**
 * The language table for code outlines: one entry per language, and nothing about languages lives
 * anywhere else. An entry names the grammar file of tree-sitter-wasms, the words that select it
 * (`--lang`, fence tags, file extensions), the node types whose bodies may be replaced, the node
 * types that count as bodies, and the placeholder a replaced body becomes. Adding a language is one
 * entry here (and its grammar in tree-sitter-wasms).
 *
 * This module is data plus cheap lookups: it is imported at start-up, so it must not import a parser.
 */

export interface LanguageSpec {
  /** Canonical name, used in config (`languages:`) and notes. */
  readonly name: string;
  /** Grammar stem: node_modules/tree-sitter-wasms/out/tree-sitter-<grammar>.wasm */
  readonly grammar: string;
  /** Other names for --lang and fence tags (lower case). */
  readonly aliases: readonly string[];
  /** File extensions, without the dot (lower case). */
  readonly extensions: readonly string[];
  /** Node types whose body is replaced when it is long enough: functions, methods, constructors, lambdas. */
  readonly functions: readonly string[];
  /**
   * Node types that are a function's body: its `body` field or first child of one of these types.
   * '*' accepts the `body` field whatever its type (expression-bodied definitions). A function with
   * neither uses its own `{ … }` span (Kotlin `init { }`, Swift computed properties).
   */
  readonly bodies: readonly string[];
  /**
   * What a replaced body becomes. `{ … }` (brace languages) replaces a braced body whole, and an
   * expression body after its `=`/`=>`; any other placeholder (indentation languages) replaces the
   * statements, keeping the line's indentation and a leading docstring. Each still parses in its
   * language: Ruby's is `…`, because `...` before `end` reads as an endless range.
   */
  readonly placeholder: '{ … }' | '...' | '…';
  /** A leading string statement of a module, class or function body is its docstring (Python). */
  readonly docstrings?: boolean;
  /**
   * Quote characters of string and character literals, for the bracket scan that closes a file
   * cut off mid-function (src/code/truncated.ts). Default `"'`; Rust has only `"` (`'a` is a
   * lifetime).
   */
  readonly quotes?: string;
}

const C_FUNCTIONS = ['function_definition'];

export const LANGUAGES: readonly LanguageSpec[] = [
  {
    name: 'go',
    grammar: 'go',
    aliases: ['golang'],
    extensions: ['go'],
    functions: ['function_declaration', 'method_declaration', 'func_literal'],
    bodies: ['block'],
    placeholder: '{ … }',
    quotes: '"\'`',
  },
  {
    name: 'python',
    grammar: 'python',
    aliases: ['py', 'python3', 'py3'],
    extensions: ['py', 'pyi', 'pyw'],
    functions: ['function_definition'],
    bodies: ['block'],
    placeholder: '...',
    docstrings: true,
  },
  {
    name: 'javascript',
    grammar: 'javascript',
    aliases: ['js', 'jsx', 'node', 'mjs', 'cjs'],
    extensions: ['js', 'jsx', 'mjs', 'cjs'],
    functions: [
      'function_declaration',
      'generator_function_declaration',
      'function_expression',
      'function',
      'generator_function',
      'arrow_function',
      'method_definition',
    ],
    bodies: ['statement_block'],
    placeholder: '{ … }',
    quotes: '"\'`',
  },
  {
    name: 'typescript',
    grammar: 'typescript',
    aliases: ['ts', 'mts', 'cts'],
    extensions: ['ts', 'mts', 'cts'],
    functions: [
      'function_declaration',
      'generator_function_declaration',
      'function_expression',
      'function',
      'generator_function',
      'arrow_function',
      'method_definition',
    ],
    bodies: ['statement_block'],
    placeholder: '{ … }',
    quotes: '"\'`',
  },
  {
    name: 'tsx',
    grammar: 'tsx',
    aliases: [],
    extensions: ['tsx'],
    functions: [
      'function_declaration',
      'generator_function_declaration',
      'function_expression',
      'function',
      'generator_function',
      'arrow_function',
      'method_definition',
    ],
    bodies: ['statement_block'],
    placeholder: '{ … }',
    quotes: '"\'`',
  },
  {
    name: 'rust',
    grammar: 'rust',
    aliases: ['rs'],
    extensions: ['rs'],
    functions: ['function_item', 'closure_expression'],
    bodies: ['block'],
    placeholder: '{ … }',
    quotes: '"',
  },
  {
    name: 'java',
    grammar: 'java',
    aliases: [],
    extensions: ['java'],
    functions: [
      'method_declaration',
      'constructor_declaration',
      'compact_constructor_declaration',
      'static_initializer',
      'lambda_expression',
    ],
    bodies: ['block', 'constructor_body'],
    placeholder: '{ … }',
  },
  {
    name: 'c',
    grammar: 'c',
    aliases: [],
    extensions: ['c'],
    functions: C_FUNCTIONS,
    bodies: ['compound_statement'],
    placeholder: '{ … }',
  },
  {
    name: 'cpp',
    grammar: 'cpp',
    aliases: ['c++', 'cxx', 'cc'],
    // .h goes to C++: its grammar also reads C headers, while the C grammar fails on C++ ones.
    extensions: ['cpp', 'cc', 'cxx', 'c++', 'hpp', 'hh', 'hxx', 'h', 'ipp', 'inl'],
    functions: [...C_FUNCTIONS, 'lambda_expression'],
    bodies: ['compound_statement'],
    placeholder: '{ … }',
  },
  {
    name: 'ruby',
    grammar: 'ruby',
    aliases: ['rb'],
    extensions: ['rb', 'rake', 'gemspec'],
    functions: ['method', 'singleton_method', 'do_block', 'block'],
    bodies: ['body_statement', 'block_body'],
    placeholder: '…',
  },
  {
    name: 'php',
    grammar: 'php',
    aliases: [],
    extensions: ['php'],
    functions: [
      'function_definition',
      'method_declaration',
      'anonymous_function_creation_expression',
      'anonymous_function',
    ],
    bodies: ['compound_statement'],
    placeholder: '{ … }',
  },
  {
    name: 'csharp',
    grammar: 'c_sharp',
    aliases: ['cs', 'c#', 'c_sharp'],
    extensions: ['cs'],
    functions: [
      'method_declaration',
      'constructor_declaration',
      'destructor_declaration',
      'operator_declaration',
      'conversion_operator_declaration',
      'local_function_statement',
      'accessor_declaration',
      'lambda_expression',
    ],
    bodies: ['block', 'arrow_expression_clause'],
    placeholder: '{ … }',
  },
  {
    name: 'kotlin',
    grammar: 'kotlin',
    aliases: ['kt', 'kts'],
    extensions: ['kt', 'kts'],
    functions: [
      'function_declaration',
      'secondary_constructor',
      'anonymous_initializer',
      'getter',
      'setter',
      'anonymous_function',
    ],
    bodies: ['function_body'],
    placeholder: '{ … }',
  },
  {
    name: 'swift',
    grammar: 'swift',
    aliases: [],
    extensions: ['swift'],
    functions: [
      'function_declaration',
      'init_declaration',
      'deinit_declaration',
      'computed_property',
      'subscript_declaration',
    ],
    bodies: ['function_body', 'computed_property'],
    placeholder: '{ … }',
  },
  {
    name: 'scala',
    grammar: 'scala',
    aliases: ['sc'],
    extensions: ['scala', 'sc'],
    functions: ['function_definition'],
    bodies: ['*'],
    placeholder: '{ … }',
  },
];

const BY_WORD = new Map<string, LanguageSpec>();
for (const lang of LANGUAGES) {
  for (const word of [lang.name, lang.grammar, ...lang.aliases]) BY_WORD.set(word, lang);
}
const BY_EXTENSION = new Map<string, LanguageSpec>();
for (const lang of LANGUAGES) for (const ext of lang.extensions) BY_EXTENSION.set(ext, lang);

/** The language a word names: a name, alias or extension, any case, with or without a leading dot. */
export function findLanguage(word: string): LanguageSpec | undefined {
  const w = word.trim().toLowerCase().replace(/^\./, '');
  return BY_WORD.get(w) ?? BY_EXTENSION.get(w);
}

/** The language of a file path, from its extension (the last one: x.test.ts is TypeScript). */
export function languageOfPath(path: string): LanguageSpec | undefined {
  const base = path.slice(Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\')) + 1);
  const dot = base.lastIndexOf('.');
  if (dot <= 0) return undefined;
  return BY_EXTENSION.get(base.slice(dot + 1).toLowerCase());
}

export const LANGUAGE_NAMES: readonly string[] = LANGUAGES.map((l) => l.name);
