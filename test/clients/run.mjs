// npm run test:clients: installs the pinned agent clients (clients.json) into a cache, then runs
// a real-client suite inside a network namespace that has only loopback, so the clients can reach
// nothing but the scripted model servers the tests start on 127.0.0.1: the hooks (*.clients.ts),
// or with `--suite proxy` (npm run test:proxy-clients) the proxy (test/proxy/*.real.ts).
// A client that cannot be installed is reported and its tests are skipped, by name, never passed.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const suiteAt = args.indexOf('--suite');
const suite = suiteAt === -1 ? 'hooks' : args.splice(suiteAt, 2)[1];
const CONFIGS = {
  hooks: join(here, 'vitest.config.ts'),
  proxy: join(here, '..', 'proxy', 'vitest.clients.config.ts'),
};
if (!CONFIGS[suite]) {
  process.stderr.write(`test:clients: unknown suite ${JSON.stringify(suite)} (hooks or proxy)\n`);
  process.exit(2);
}
const root = resolve(here, '../..');
const clients = JSON.parse(readFileSync(join(here, 'clients.json'), 'utf8'));
const cache = resolve(process.env.CG_CLIENTS_CACHE || join(root, 'node_modules', '.cache', 'cg-clients'));
mkdirSync(cache, { recursive: true });

// A package named per platform (`{platform}-{arch}`, as OpenCode's binaries are published) is
// resolved for this machine; `binPath` names its binary inside the install when no .bin link is made.
const PLATFORMS = { darwin: 'darwin', linux: 'linux', win32: 'windows' };
const forHere = (s) =>
  s
    .replaceAll('{platform}', PLATFORMS[process.platform] ?? process.platform)
    .replaceAll('{arch}', process.arch);

const status = {};
for (const [name, entry] of Object.entries(clients)) {
  if (name.startsWith('/')) continue;
  const c = { ...entry, package: forHere(entry.package) };
  const dir = join(cache, `${name}-${c.version}`);
  const bin = c.binPath ? join(dir, forHere(c.binPath)) : join(dir, 'node_modules', '.bin', c.bin);
  if (!existsSync(bin)) {
    process.stderr.write(`test:clients: installing ${c.package}@${c.version} into ${dir}\n`);
    mkdirSync(dir, { recursive: true });
    const r = spawnSync(
      'npm',
      [
        'install',
        '--no-audit',
        '--no-fund',
        '--no-save',
        // A binary named by binPath is the package's own file: nothing needs an install script.
        ...(c.binPath ? ['--ignore-scripts'] : []),
        '--prefix',
        dir,
        `${c.package}@${c.version}`,
      ],
      { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8', timeout: 600_000 },
    );
    if (r.status !== 0 || !existsSync(bin)) {
      const why = (r.stderr || r.error?.message || `exit ${r.status}`)
        .trim()
        .split('\n')
        .slice(-3)
        .join(' / ');
      process.stderr.write(`test:clients: ${c.package}@${c.version} could not be installed: ${why}\n`);
      status[name] = { ok: false, why: `${c.package}@${c.version} could not be installed: ${why}` };
      continue;
    }
  }
  // In a home of its own: a client asked its version already makes its data, state and cache dirs
  // (OpenCode's ~/.local/share/opencode, …), which are not the tests' to make in the user's home.
  const versionHome = mkdtempSync(join(cache, 'version-home-'));
  const v = spawnSync(bin, ['--version'], {
    encoding: 'utf8',
    timeout: 60_000,
    env: {
      ...process.env,
      HOME: versionHome,
      XDG_CONFIG_HOME: join(versionHome, '.config'),
      XDG_DATA_HOME: join(versionHome, '.local', 'share'),
      XDG_STATE_HOME: join(versionHome, '.local', 'state'),
      XDG_CACHE_HOME: join(versionHome, '.cache'),
    },
  });
  rmSync(versionHome, { recursive: true, force: true });
  status[name] =
    v.status === 0
      ? { ok: true, bin, version: c.version, reported: v.stdout.trim() }
      : { ok: false, why: `${bin} --version failed: ${(v.stderr || '').trim().split('\n')[0]}` };
  if (!status[name].ok) process.stderr.write(`test:clients: ${status[name].why}\n`);
}
// One status file per run: two runs sharing the cache must not read each other's.
const statusFile = join(cache, `status-${process.pid}.json`);

// The build the clients' hooks run.
const build = spawnSync(process.execPath, [join(root, 'scripts', 'build.mjs')], { stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);

const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs');
// Extra arguments pick files, as with vitest: `npm run test:clients -- codex`.
const extra = args.map((a) => `'${a.replaceAll("'", `'\\''`)}'`).join(' ');
const inner = `ip link set lo up && exec "${process.execPath}" "${vitest}" run --config "${CONFIGS[suite]}" ${extra}`;
const useNetns =
  process.getuid?.() === 0 && existsSync('/usr/bin/unshare') && process.env.CG_CLIENTS_NO_NETNS !== '1';
if (!useNetns) {
  process.stderr.write(
    'test:clients: cannot make a loopback-only network namespace (needs root and unshare); not running\n',
  );
  process.exit(1);
}
// Where each run's worlds (homes, projects, stores) go: never under /tmp, which Codex's sandbox
// treats as writable (a store outside its writable roots would be writable after all). A checkout
// that itself lives under /tmp (a CI rehearsal's clone) puts them in /var/tmp.
const underTmp = (p) => /^\/(tmp|dev\/shm)(\/|$)/.test(p) || p.startsWith(`${tmpdir()}/`);
// Each run has a directory of its own, so two suites running at once (two checkouts sharing one
// cache) never remove each other's worlds.
const ownRuns = () => {
  const under = join(cache, 'runs');
  mkdirSync(under, { recursive: true });
  return mkdtempSync(join(under, 'run-'));
};
const runs = resolve(
  process.env.CG_CLIENTS_WORK || (underTmp(cache) ? mkdtempSync('/var/tmp/cg-clients-runs-') : ownRuns()),
);
writeFileSync(statusFile, JSON.stringify(status, null, 2));
const r = spawnSync('unshare', ['-n', 'sh', '-c', inner], {
  stdio: 'inherit',
  env: { ...process.env, CG_CLIENTS_STATUS: statusFile, CG_CLIENTS_WORK: runs },
});
// Each run's worlds go, unless kept to look into (CG_CLIENTS_KEEP=1) or the place is the caller's.
if (process.env.CG_CLIENTS_KEEP !== '1' && !process.env.CG_CLIENTS_WORK)
  rmSync(runs, { recursive: true, force: true });
rmSync(statusFile, { force: true });
process.exit(r.status ?? 1);
