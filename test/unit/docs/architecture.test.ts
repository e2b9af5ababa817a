// docs/architecture.md is the map of src/ (issue 29): one line per folder, and every file at the
// top of src/ named. A folder or top-level file added, moved or removed without the map fails here.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../helpers.js';

const map = readFileSync(join(ROOT, 'docs', 'architecture.md'), 'utf8');
const entries = readdirSync(join(ROOT, 'src'), { withFileTypes: true });

describe('docs/architecture.md', () => {
  it('has one line for each folder of src/, and none for a folder that is gone', () => {
    const folders = entries.filter((e) => e.isDirectory()).map((e) => e.name);
    const listed = [...map.matchAll(/^src\/([\w-]+)\/ /gm)].map((m) => m[1]);
    expect(listed.sort()).toEqual(folders.sort());
  });

  it('names every file at the top of src/, and none that is gone', () => {
    const files = entries.filter((e) => e.isFile() && e.name.endsWith('.ts')).map((e) => e.name);
    const top = map.slice(map.indexOf('Files at the top of `src/`'), map.indexOf('## Generated reference'));
    const named = new Set([...top.matchAll(/\b([\w-]+\.ts)\b/g)].map((m) => m[1]));
    expect([...named].sort()).toEqual(files.sort());
  });
});
