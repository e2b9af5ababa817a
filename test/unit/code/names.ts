/**
 * Test helper: the names a source file declares at top level — functions, methods, classes and
 * other type declarations, module/namespace members — found by parsing it with tree-sitter.
 * "Top level" means not inside a function body: those are what an outline promises to keep.
 * Deliberately independent of src/code/outline.ts (it only shares the language table), so a test
 * comparing the names of a file and of its outline checks the outline rather than itself.
 */
import type { Node } from 'web-tree-sitter';
import type { LanguageSpec } from '../../../src/code/languages.js';
import { parse } from '../../../src/code/parser.js';

const DECLARATION =
  /(?:^|_)(?:function|method|class|interface|struct|enum|trait|module|object|protocol|constructor|record|namespace|impl|type_alias|type_spec|singleton_method|init)(?:_|$)/;
const NOT_DECLARATION =
  /call|invocation|expression|literal|body|list|parameter|argument|reference|creation|identifier|modifier|specifier_list|clause|_type$|^type$|pattern|import|heading/;

const FUNCTION_VALUE = /function|arrow/;

function nameOf(node: Node): string | undefined {
  const field = node.childForFieldName('name') ?? node.childForFieldName('declarator');
  if (field) {
    if (/identifier|name|constant|operator/.test(field.type) && field.namedChildCount === 0)
      return field.text;
    return nameOf(field) ?? (/identifier|name|constant/.test(field.type) ? field.text : undefined);
  }
  for (const child of node.namedChildren) {
    if (child && /^(?:simple_identifier|type_identifier|identifier|constant|name)$/.test(child.type)) {
      return child.text;
    }
  }
  return undefined;
}

/** `type name` for every declaration outside function bodies, in order. */
export async function declaredNames(spec: LanguageSpec, code: string): Promise<string[]> {
  const tree = await parse(spec, code);
  if (!tree) throw new Error('parse timed out');
  const functions = new Set(spec.functions);
  const bodies = new Set(spec.bodies);
  const names: string[] = [];
  const visit = (node: Node) => {
    if (DECLARATION.test(node.type) && !NOT_DECLARATION.test(node.type)) {
      const name = nameOf(node);
      if (name) names.push(`${node.type} ${name}`);
    } else if (
      node.type === 'variable_declarator' &&
      FUNCTION_VALUE.test(node.childForFieldName('value')?.type ?? '')
    ) {
      // `const f = () => {…}`: a function declared as a variable (JS/TS components, helpers).
      const name = node.childForFieldName('name');
      if (name) names.push(`${node.type} ${name.text}`);
    }
    const isFunction = functions.has(node.type);
    node.namedChildren.forEach((child, i) => {
      if (!child) return;
      if (isFunction) {
        const field = node.fieldNameForNamedChild(i);
        if (bodies.has(child.type) || (field === 'body' && bodies.has('*'))) return;
      }
      visit(child);
    });
  };
  try {
    visit(tree.rootNode);
  } finally {
    tree.delete();
  }
  return names;
}

/** Names of `before` that `after` lacks (as a multiset: an overload must survive as often as it appears). */
export function missingNames(before: readonly string[], after: readonly string[]): string[] {
  const left = new Map<string, number>();
  for (const n of after) left.set(n, (left.get(n) ?? 0) + 1);
  const missing: string[] = [];
  for (const n of before) {
    const k = left.get(n) ?? 0;
    if (k === 0) missing.push(n);
    else left.set(n, k - 1);
  }
  return missing;
}
