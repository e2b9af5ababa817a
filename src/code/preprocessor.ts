/**
 * C-preprocessor conditionals and the parser: tree-sitter reads `#if`/`#else`/`#endif` as nodes of
 * the syntax, so a branch under #if that splits a statement (`} #if X else if (a) { … } #endif else
 * if (b) {`) breaks the function in two, and the rest of it reads as top-level code. Blanking the
 * conditional directive lines — every character but the newline becomes a space, so every offset
 * stays where it was — lets the grammar read the code as if every branch were taken, which is what
 * an outline needs: the function's real extent. The caller keeps whichever parse has fewer errors,
 * since code whose branches only make sense apart (two alternative headers for one body) reads
 * worse that way.
 */

/** A conditional directive line, with what continues it after a trailing backslash. */
const CONDITIONAL = /^[ \t]*#[ \t]*(?:if|ifdef|ifndef|elif|elifdef|elifndef|else|endif)\b/;

/** The code with its conditional directive lines blanked, or undefined when it has none. */
export function withoutConditionals(code: string): string | undefined {
  if (!code.includes('#')) return undefined;
  const lines = code.split('\n');
  let changed = false;
  let continued = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (continued || CONDITIONAL.test(line)) {
      continued = /\\\r?$/.test(line);
      lines[i] = line.replace(/[^\r]/g, ' ');
      changed = true;
    }
  }
  return changed ? lines.join('\n') : undefined;
}
