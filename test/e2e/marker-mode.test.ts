/**
 * Compact markers, end to end: CG_MARKER=compact (or store.marker: compact, or store.hint: "")
 * writes `<<cg:KEY>>` alone, counted at its real cost, and `cg expand` still gives the original.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers.js';
import { cg } from './run-cg.js';

const bundleInstall = [
  'Fetching gem metadata from https://rubygems.org/.........',
  'Resolving dependencies...',
  'Using rake 13.1.0',
  'Using ast 2.4.2',
  'Fetching rspec 3.13.0',
  'Installing rspec 3.13.0',
  'Using rubocop 1.62.0',
  'Fetching simplecov 0.22.0',
  'Installing simplecov 0.22.0',
  'Bundle complete! 85 Gemfile dependencies, 202 gems now installed.',
  '',
].join('\n');

describe('compact markers', () => {
  it('CG_MARKER=compact writes the marker alone, and it expands to the exact original', () => {
    const storeDir = join(tempDir(), 'store');
    const r = cg(['--command', 'bundle install'], {
      input: bundleInstall,
      storeDir,
      env: { CG_MARKER: 'compact' },
    });
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^<<cg:[0-9a-f]{16}>>$/m);
    expect(r.out).not.toContain('cg expand');
    const key = /<<cg:([0-9a-f]{16})>>/.exec(r.out)![1]!;
    expect(cg(['expand', key], { storeDir }).out).toBe(bundleInstall);
  });

  it('lets a small output win that the full hint would have kept verbatim', () => {
    const storeDir = join(tempDir(), 'store');
    const init = [
      'Initializing the backend...',
      'Initializing provider plugins...',
      '- Reusing previous version of hashicorp/aws from the dependency lock file',
      '- Using previously-installed hashicorp/aws v5.0.0',
      '',
      'OpenTofu has been successfully initialized!',
      '',
    ].join('\n');
    const args = ['--command', 'tofu init'];
    expect(cg(args, { input: init, storeDir }).out).toBe(init);
    const compact = cg(args, { input: init, storeDir, env: { CG_MARKER: 'compact' } }).out;
    expect(compact).toMatch(/^OpenTofu has been successfully initialized!\n<<cg:[0-9a-f]{16}>>\n$/);
  });

  it('store.marker: compact in the config file does the same, and a bad CG_MARKER exits 2', () => {
    const dir = tempDir();
    const config = join(dir, 'config.yaml');
    writeFileSync(config, 'store:\n  marker: compact\n');
    const text = `${Array.from({ length: 3000 }, (_, i) => `line ${i}`).join('\n')}\n`;
    const r = cg(['--config', config], { input: text, storeDir: join(dir, 'store') });
    expect(r.out).toMatch(/<<cg:[0-9a-f]{16}>>\n$/);
    expect(r.out).not.toContain('cg expand');
    const bad = cg([], { input: 'hi\n', env: { CG_MARKER: 'tiny' } });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('cg: CG_MARKER: expected one of full, compact, got "tiny"\n');
  });
});
