/**
 * Test helper: the names a source file declares outside function bodies — functions, methods,
 * classes and other type declarations, module/namespace members, fields and properties, enum
 * members, constants and variables (also module- and class-level assignments) — found by parsing
 * it with tree-sitter. Those are what an outline promises to keep.
 * Deliberately independent of src/code/outline.ts (it shares the language table and the parsing:
 * for C-family code the cleaner of the plain parse and the one with preprocessor conditionals
 * blanked, as a split `#if` branch otherwise reads as a function named `if`), so a test comparing
 * the names of a file and of its outline checks the outline rather than itself.
 */
import type { Node, Tree } from 'web-tree-sitter';
import type { LanguageSpec } from '../../../src/code/languages.js';
import { errorShare, parse } from '../../../src/code/parser.js';
import { withoutConditionals } from '../../../src/code/preprocessor.js';

const DECLARATION =
  /(?:^|_)(?:function|method|class|interface|struct|enum|trait|module|object|protocol|constructor|record|namespace|impl|type_alias|type_spec|singleton_method|init)(?:_|$)/;
const NOT_DECLARATION =
  /call|invocation|expression|literal|body|list|parameter|argument|reference|creation|identifier|modifier|specifier_list|clause|_type$|^type$|pattern|import|heading/;

/** Members and variables, by node type (fields, properties, enum members, constants). */
const MEMBER = new Set([
  'field_declaration',
  'public_field_definition',
  'property_signature',
  'property_declaration',
  'variable_declarator',
  'const_spec',
  'var_spec',
  'const_item',
  'static_item',
  'enumerator',
  'enum_constant',
  'enum_member_declaration',
  'enum_entry',
  'enum_variant',
  'property_element',
  'const_element',
  'val_definition',
  'var_definition',
]);

/** `x = …` outside functions: a module or class attribute (Python), a constant (Ruby). */
function assignedName(node: Node): string | undefined {
  if (node.type !== 'assignment') return undefined;
  const left = node.childForFieldName('left');
  return left && /^(?:identifier|constant)$/.test(left.type) ? left.text : undefined;
}

async function cleanestTree(spec: LanguageSpec, code: string): Promise<Tree> {
  const tree = await parse(spec, code);
  if (!tree) throw new Error('parse timed out');
  const masked = spec.preprocessor && tree.rootNode.hasError ? withoutConditionals(code) : undefined;
  if (masked === undefined) return tree;
  const other = await parse(spec, masked);
  if (other && errorShare(other, masked.length) < errorShare(tree, code.length)) {
    tree.delete();
    return other;
  }
  other?.delete();
  return tree;
}

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
  // Kotlin `val x: Int`: the name sits in the property's variable_declaration.
  for (const child of node.namedChildren) {
    if (child?.type === 'variable_declaration') return nameOf(child);
  }
  return undefined;
}

/** `type name` for every declaration outside function bodies, in order. */
export async function declaredNames(spec: LanguageSpec, code: string): Promise<string[]> {
  const tree = await cleanestTree(spec, code);
  const functions = new Set(spec.functions);
  const bodies = new Set(spec.bodies);
  const names: string[] = [];
  const visit = (node: Node) => {
    if (DECLARATION.test(node.type) && !NOT_DECLARATION.test(node.type)) {
      const name = nameOf(node);
      if (name) names.push(`${node.type} ${name}`);
    } else if (MEMBER.has(node.type)) {
      // `const f = () => {…}` included: a function declared as a variable (JS/TS components).
      const name = nameOf(node);
      if (name) names.push(`${node.type} ${name}`);
    } else {
      const name = assignedName(node);
      if (name) names.push(`${node.type} ${name}`);
    }
    const isFunction = functions.has(node.type);
    // A function that is its own body (a Swift computed property): nothing inside is declared.
    if (isFunction && bodies.has(node.type)) return;
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
