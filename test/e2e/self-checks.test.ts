/**
 * cg's checks of itself are not uses of cg: `cg doctor`'s hook round trip leaves no store entry,
 * no run in `cg stats` and no temporary directory behind.
 */
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers.js';
import { cg } from './run-cg.js';

const made: string[] = [];
afterEach(() => {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A fresh user: HOME, XDG dirs, a temp directory, a store and a ledger of its own. */
function freshUser() {
  const home = tempDir('cg-selfcheck-');
  made.push(home);
  const tmp = join(home, 'tmp');
  mkdirSync(tmp);
  const env = {
    HOME: home,
    PATH: '/usr/bin:/bin',
    TMPDIR: tmp,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_CACHE_HOME: join(home, '.cache'),
  };
  return { home, tmp, env, storeDir: join(home, 'store') };
}

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && !e.name.startsWith('.'))
    .map((e) => join(e.parentPath, e.name));
}

describe('cg doctor is not a use of cg', () => {
  it('leaves no run in cg stats, no store entry and no temporary directory behind', () => {
    const u = freshUser();
    const opts = { env: u.env, storeDir: u.storeDir, cwd: u.home };
    expect(cg(['init', 'claude'], opts).code).toBe(0);
    const doctor = cg(['doctor'], opts);
    expect(doctor.code, doctor.out).toBe(0);
    expect(doctor.out).toMatch(/ok {3}.*hook claude answers as Claude Code expects/);
    // In the home directory the project's settings are the user's: one file, one round trip.
    expect(doctor.out.match(/answers as Claude Code expects/g)).toHaveLength(1);
    const stats = JSON.parse(cg(['stats', '--json'], opts).out);
    expect(stats.runs).toBe(0);
    expect(filesUnder(u.storeDir)).toEqual([]);
    expect(readdirSync(u.tmp)).toEqual([]);
  });

  it('prints the same report as JSON with --json, and exits as the text report does', () => {
    const u = freshUser();
    const opts = { env: u.env, storeDir: u.storeDir, cwd: u.home };
    const none = cg(['doctor', '--json'], opts);
    expect(none.code).toBe(0);
    expect(JSON.parse(none.out)).toMatchObject({ ok: true, installed: false, proxy: { used: false } });
    cg(['init', 'claude'], opts);
    const r = cg(['doctor', '--json'], opts);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.out);
    expect(Object.keys(report)).toEqual(['ok', 'installed', 'hosts', 'wrapOnly', 'proxy']);
    const claude = report.hosts.find((h: { host: string }) => h.host === 'claude');
    expect(claude).toMatchObject({ title: 'Claude Code', installed: true, version: null });
    expect(claude.checks).toContainEqual(
      expect.objectContaining({
        status: 'ok',
        event: 'PostToolUse',
        file: join(u.home, '.claude', 'settings.json'),
      }),
    );
    expect(claude.checks).toContainEqual(expect.objectContaining({ status: 'unknown' }));
    expect(report.hosts.map((h: { host: string }) => h.host)).toEqual([
      'claude',
      'codex',
      'gemini',
      'opencode',
    ]);
    expect(filesUnder(u.storeDir)).toEqual([]);
  });
});
