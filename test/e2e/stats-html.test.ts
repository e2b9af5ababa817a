/**
 * `cg stats --html FILE` end to end, without a browser (stats-html.slow.test.ts renders the page):
 * the page's figures are `cg stats --json`'s under the same filters, `-` is stdout, and FILE is
 * written the way a user can trust — a non-regular file refused before anything is read, an
 * existing one replaced whole (its mode kept, nothing left beside it), a symlink's target replaced.
 */
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers.js';
import { expectedKeys, figuresInHtml, mismatches } from './page-figures.js';
import { cg } from './run-cg.js';
import { writeHtmlLedger } from './stats-html-ledger.js';

let dir: string;
let store: string;
const run = (args: string[]) => cg(['stats', ...args], { storeDir: store });
/** The page without its one moving part, the time it was made. */
const unstamped = (html: string) => html.replace(/ · made [^ ]+ from /, ' · made … from ');

beforeAll(async () => {
  dir = tempDir('cg-stats-html-');
  store = join(dir, 'store');
  await writeHtmlLedger(`${store}.state`, Date.now());
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('cg stats --html', () => {
  it('writes a page whose figures are those of cg stats --json, under --since and --top as well', () => {
    for (const filters of [[], ['--since', '3d', '--top', '2']]) {
      const file = join(dir, `page${filters.length}.html`);
      const wrote = run(['--html', file, ...filters]);
      expect(wrote).toMatchObject({ code: 0, stderr: '' });
      expect(wrote.out).toMatch(/^cg stats: wrote .*page\d\.html \(\d+\.\d KB\)\n$/);
      const report = JSON.parse(run(['--json', ...filters]).out);
      const figures = figuresInHtml(readFileSync(file, 'utf8'));
      expect(mismatches(figures, report)).toEqual([]);
      const keys = new Set(figures.map(([k]) => k));
      expect(expectedKeys(report).filter((k) => !keys.has(k))).toEqual([]);
    }
    // The filters changed the figures: the check above compared two different reports.
    const all = JSON.parse(run(['--json']).out);
    const recent = JSON.parse(run(['--json', '--since', '3d', '--top', '2']).out);
    expect(recent.capped.saved).toBeLessThan(all.capped.saved);
    expect(recent.commands).toHaveLength(2);
  });

  it('writes the same page to stdout for -', () => {
    const file = join(dir, 'same.html');
    expect(run(['--html', file]).code).toBe(0);
    const out = run(['--html', '-']);
    expect(out).toMatchObject({ code: 0, stderr: '' });
    expect(unstamped(out.out)).toBe(unstamped(readFileSync(file, 'utf8')));
  });

  it('refuses a directory, a pipe or a device as FILE, and leaves it as it was (exit 2)', () => {
    const sub = join(dir, 'a-dir');
    mkdirSync(sub);
    const fifo = join(dir, 'a-fifo');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    for (const [target, kind] of [
      [sub, 'a directory'],
      [fifo, 'a pipe'],
      ['/dev/null', 'a device'],
    ] as const) {
      const r = run(['--html', target]);
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(
        `cg: stats --html: ${target} is ${kind}, not a regular file; give a file name, or - for stdout\n`,
      );
      expect(r.out).toBe('');
    }
    expect(readdirSync(sub)).toEqual([]);
    expect(statSync(fifo).isFIFO()).toBe(true);
  });

  it('replaces an existing page whole, keeping its mode and leaving nothing beside it', () => {
    const sub = join(dir, 'replace');
    mkdirSync(sub);
    const file = join(sub, 'stats.html');
    writeFileSync(file, 'old page');
    chmodSync(file, 0o600);
    const before = statSync(file).ino;
    expect(run(['--html', file]).code).toBe(0);
    // A new file renamed over the old one, not the old one rewritten in place.
    expect(statSync(file).ino).not.toBe(before);
    expect(readFileSync(file, 'utf8')).toMatch(/^<!doctype html>[\s\S]*<\/html>\n$/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(sub)).toEqual(['stats.html']);
  });

  it('replaces the file a symlink names and keeps the link', () => {
    const sub = join(dir, 'link');
    mkdirSync(sub);
    const real = join(sub, 'real.html');
    writeFileSync(real, 'old page');
    const link = join(sub, 'link.html');
    symlinkSync('real.html', link);
    expect(run(['--html', link]).code).toBe(0);
    expect(readlinkSync(link)).toBe('real.html');
    expect(readFileSync(real, 'utf8')).toMatch(/^<!doctype html>/);
    expect(readdirSync(sub).sort()).toEqual(['link.html', 'real.html']);
  });

  it('says in one line why it could not write, and what it needs', () => {
    const missing = join(dir, 'no-such-dir', 'stats.html');
    expect(run(['--html', missing])).toMatchObject({
      code: 1,
      out: '',
      stderr: `cg: stats --html: cannot write ${missing}: its directory does not exist\n`,
    });
    expect(run(['--html', join(dir, 'x.html'), '--json'])).toMatchObject({
      code: 2,
      stderr: 'cg: stats: --html writes a page; it cannot be combined with --json or --graph\n',
    });
    expect(run(['--html', '', '--since', '1d']).code).toBe(2);
    expect(run(['--html'])).toMatchObject({ code: 2 });
  });
});
