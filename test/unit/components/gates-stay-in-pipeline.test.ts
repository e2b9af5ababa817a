/**
 * The pipeline owns the gates (DESIGN §1, STYLE): no component reads an output's error flag, its
 * well-formedness or marker state, so none can disagree with the gates about what may change.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../helpers.js';

const dir = join(ROOT, 'src', 'components');
const GATE_INPUTS = /\b(?:isError|rewritable|hasMarker|markerKeys|MARKER_RE)\b/;
const COMMENT = /^\s*(?:\/\/|\/?\*)/;

describe('components', () => {
  it.each(readdirSync(dir).filter((f) => f.endsWith('.ts')))('%s reads no gate input', (file) => {
    const lines = readFileSync(join(dir, file), 'utf8').split('\n');
    expect(lines.filter((l) => !COMMENT.test(l) && GATE_INPUTS.test(l))).toEqual([]);
  });
});
