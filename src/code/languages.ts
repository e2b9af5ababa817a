/**
 * The language table for code outlines: one entry per language, and nothing about languages lives
 * anywhere else. An entry names the grammar file of tree-sitter-wasms, the words that select it
 * (`--lang`, fence tags, file extensions), the node types whose bodies may be replaced, the node
 * types that count as bodies, and the placeholder a replaced body becomes. Adding a language is one
 * entry here (and its grammar in tree-sitter-wasms).
 *
 * Besides bodies, an entry names what an outline may shorten further when it is still too long:
 * data literals (values), the name lists of imports, and parameter lists. None of them holds a name
 * the outline promises to keep (src/code/outline.ts checks that a value holds no function or class).
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
  /**
   * Node types of data literals (object, array, dictionary, initializer lists) that may become their
   * delimiters around `…` (`[ … ]`) when they lie outside every function body and hold no function.
   */
  readonly values?: readonly string[];
  /**
   * What stands for the elided contents of a value, import list or parameter list, inside its kept
   * delimiters. Default `/*…*\/`: a comment, so `f(/*…*\/)` and `[/*…*\/]` still parse; Python has
   * `...` (`[...]` is a list), Ruby no inline comment at all (`…`).
   */
  readonly elision?: string;
  /** Node types of the name list of an import (`{ a, b }` in `import { a, b } from 'x'`). */
  readonly imports?: readonly string[];
  /**
   * Node types of a parameter list that has no `parameters` field (Kotlin). Without either, the
   * parameters are the function's own `(` … `)` children (Swift).
   */
  readonly parameters?: readonly string[];
  /** Node types of type-parameter lists (`<T extends X>`, C++ `template <…>`), cut like parameters. */
  readonly generics?: readonly string[];
  /**
   * Nodes that make a parameter declare a member (TypeScript `private x`, `readonly x`; PHP promoted
   * properties): a parameter list holding one is never shortened.
   */
  readonly memberParameters?: readonly string[];
  /**
   * C-preprocessor conditionals (#if/#ifdef/#elif/#else/#endif) can split a statement in two (an
   * `else if` chain with a branch under #if), which the grammar cannot read; such code is parsed
   * a second time with those directive lines blanked (src/code/preprocessor.ts).
   */
  readonly preprocessor?: boolean;
}

const C_FUNCTIONS = ['function_definition'];

const JS_FUNCTIONS = [
  'function_declaration',
  'generator_function_declaration',
  'function_expression',
  'function',
  'generator_function',
  'arrow_function',
  'method_definition',
];
/** JavaScript and TypeScript: an arrow function's body may be an expression (JSX, a call). */
const JS_COMMON = {
  functions: JS_FUNCTIONS,
  bodies: ['*'],
  placeholder: '{ … }',
  quotes: '"\'`',
  values: ['object', 'array'],
  imports: ['named_imports'],
} as const;
const TS_MEMBER_PARAMETERS = ['accessibility_modifier', 'readonly', 'override_modifier'];

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
    values: ['literal_value'],
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
    values: ['dictionary', 'list', 'set'],
    elision: '...',
  },
  {
    name: 'javascript',
    grammar: 'javascript',
    aliases: ['js', 'jsx', 'node', 'mjs', 'cjs'],
    extensions: ['js', 'jsx', 'mjs', 'cjs'],
    ...JS_COMMON,
  },
  {
    name: 'typescript',
    grammar: 'typescript',
    aliases: ['ts', 'mts', 'cts'],
    extensions: ['ts', 'mts', 'cts'],
    ...JS_COMMON,
    memberParameters: TS_MEMBER_PARAMETERS,
    generics: ['type_parameters'],
  },
  {
    name: 'tsx',
    grammar: 'tsx',
    aliases: [],
    extensions: ['tsx'],
    ...JS_COMMON,
    memberParameters: TS_MEMBER_PARAMETERS,
    generics: ['type_parameters'],
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
    values: ['array_expression', 'field_initializer_list'],
    imports: ['use_list'],
    generics: ['type_parameters'],
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
    values: ['array_initializer'],
    generics: ['type_parameters'],
  },
  {
    name: 'c',
    grammar: 'c',
    aliases: [],
    extensions: ['c'],
    functions: C_FUNCTIONS,
    bodies: ['compound_statement'],
    placeholder: '{ … }',
    values: ['initializer_list'],
    preprocessor: true,
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
    values: ['initializer_list'],
    preprocessor: true,
    generics: ['template_parameter_list'],
  },
  {
    name: 'ruby',
    grammar: 'ruby',
    aliases: ['rb'],
    extensions: ['rb', 'rake', 'gemspec'],
    functions: ['method', 'singleton_method', 'do_block', 'block'],
    bodies: ['body_statement', 'block_body'],
    placeholder: '…',
    values: ['array', 'hash'],
    elision: '…',
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
    values: ['array_creation_expression'],
    imports: ['namespace_use_group'],
    memberParameters: ['property_promotion_parameter'],
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
    values: ['initializer_expression'],
    preprocessor: true,
    generics: ['type_parameter_list'],
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
    parameters: ['function_value_parameters'],
    generics: ['type_parameters'],
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
    values: ['array_literal', 'dictionary_literal'],
    generics: ['type_parameters'],
  },
  {
    name: 'scala',
    grammar: 'scala',
    aliases: ['sc'],
    extensions: ['scala', 'sc'],
    functions: ['function_definition'],
    bodies: ['*'],
    placeholder: '{ … }',
    imports: ['import_selectors'],
    generics: ['type_parameters'],
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
