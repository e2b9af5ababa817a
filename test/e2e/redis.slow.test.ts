/**
 * The Redis store end to end, against a real redis-server this file starts (test/redis-server.ts):
 * several "machines" (each its own local disk store, config and state) sharing one server, a server
 * restarted while runs are stashing, expiry, wrong passwords and unreachable servers, ACL users, TLS.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyOf } from '../../src/store/keys.js';
import { tempDir } from '../helpers.js';
import { NEEDS_REDIS, REDIS_SERVER, RedisServer } from '../redis-server.js';
import { BIN, seq } from './run-cg.js';

const KEY_RE = /<<cg:([0-9a-f]{16})>>/;

interface Machine {
  name: string;
  env: Record<string, string>;
  storeDir: string;
}

/** A machine of its own: local store, state and user config (the `store:` section given). */
function machine(name: string, url: string, store: Record<string, unknown> = {}): Machine {
  const root = tempDir(`cg-${name}-`);
  const config = join(root, 'config');
  mkdirSync(join(config, 'cg'), { recursive: true });
  const lines = Object.entries(store).map(([k, v]) => `  ${k}: ${JSON.stringify(v)}`);
  writeFileSync(join(config, 'cg', 'config.yaml'), lines.length ? `store:\n${lines.join('\n')}\n` : '');
  const storeDir = join(root, 'store');
  return {
    name,
    storeDir,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: root,
      XDG_CONFIG_HOME: config,
      CG_STORE_DIR: storeDir,
      CG_STATE_DIR: join(root, 'state'),
      CG_STORE_URL: url,
    },
  };
}

interface Run {
  code: number;
  stdout: Buffer;
  out: string;
  stderr: string;
}

function cg(
  m: Machine,
  args: string[],
  input: string | Buffer = '',
  env: Record<string, string> = {},
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...m.env, ...env } });
    const out: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (d) => out.push(d));
    child.stderr.on('data', (d) => {
      err += d;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const stdout = Buffer.concat(out);
      resolve({ code: code ?? -1, stdout, out: stdout.toString('utf8'), stderr: err });
    });
    child.stdin.end(input);
  });
}

function localEntries(m: Machine): string[] {
  try {
    return readdirSync(m.storeDir).flatMap((s) =>
      /^[0-9a-f]{2}$/.test(s) ? readdirSync(join(m.storeDir, s)) : [],
    );
  } catch {
    return [];
  }
}

async function expectExpands(m: Machine, key: string, original: string): Promise<void> {
  const back = await cg(m, ['expand', key]);
  expect(back.stderr).toBe('');
  expect(back.code).toBe(0);
  expect(back.stdout.equals(Buffer.from(original))).toBe(true);
}

describe.skipIf(!REDIS_SERVER)(`the Redis store${NEEDS_REDIS}`, () => {
  let server: RedisServer;
  let admin: Redis;
  beforeAll(async () => {
    server = await RedisServer.start({ password: 'team-secret' });
    admin = new Redis({ host: '127.0.0.1', port: server.port, password: 'team-secret', lazyConnect: true });
    await admin.connect();
  });
  afterAll(async () => {
    admin?.disconnect();
    await server?.stop();
  });

  it('lets 20 cg processes on two machines write through one server, and every marker expands on the other machine', async () => {
    const a = machine('a', server.url());
    const b = machine('b', server.url());
    const inputs = Array.from({ length: 20 }, (_, i) => seq(6_000 + i * 97));
    const runs = await Promise.all(inputs.map((input, i) => cg(i % 2 ? b : a, [], input)));
    const keys = runs.map((r, i) => {
      expect(r.stderr).toBe('');
      const key = KEY_RE.exec(r.out)?.[1];
      expect(key).toBe(keyOf(inputs[i]!));
      return key!;
    });
    await Promise.all(keys.map((key, i) => expectExpands(i % 2 ? a : b, key, inputs[i]!)));
    // Nothing went to the local disk stores: the markers live on the server only.
    expect([...localEntries(a), ...localEntries(b)]).toEqual([]);
    expect(await admin.exists(`cg:${keyOf(inputs[0]!)}`)).toBe(1);
  }, 120_000);

  it('gives the expired message once Redis has expired an entry, and renews the expiry on every use', async () => {
    const m = machine('ttl', server.url(), { ttl_days: 3 });
    const input = seq(60_000);
    const key = KEY_RE.exec((await cg(m, [], input)).out)![1]!;
    const ttl = await admin.ttl(`cg:${key}`);
    expect(ttl).toBeGreaterThan(3 * 86_400 - 60);
    expect(ttl).toBeLessThanOrEqual(3 * 86_400);
    await admin.expire(`cg:${key}`, 100);
    await expectExpands(m, key, input);
    expect(await admin.ttl(`cg:${key}`)).toBeGreaterThan(3 * 86_400 - 60); // the expand renewed it
    await admin.pexpire(`cg:${key}`, 1);
    await new Promise((r) => setTimeout(r, 20));
    const gone = await cg(m, ['expand', key]);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toMatch(
      new RegExp(
        `^cg: ${key}: not in the store at redis://:\\*\\*\\*@127\\.0\\.0\\.1:${server.port}/0#cg: \\(it expired or was never stored here\\); re-run the command to get its output again\\n$`,
      ),
    );
    expect(gone.stderr).not.toContain('team-secret');
  });

  it('reports a corrupt value as corrupt, and the next run stashes the output again', async () => {
    const m = machine('corrupt', server.url());
    const input = seq(70_000);
    const key = KEY_RE.exec((await cg(m, [], input)).out)![1]!;
    await admin.set(`cg:${key}`, 'not what was stashed');
    const bad = await cg(m, ['expand', key]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/is corrupt \(its bytes do not match its key\); re-run the command/);
    const again = await cg(m, ['--verbose'], input);
    expect(again.out).toContain(`<<cg:${key}>>`);
    await expectExpands(m, key, input);
  });

  it('reports a planted decompression bomb as corrupt in one line, and the next run stashes over it', async () => {
    // 64 MiB of zeros in about 64 KB under a 4 MiB limit: the shape of the 14 MB value of 3 GB that
    // took cg expand to 6.37 GB and a stash comparing against it to 2.17 GB.
    const m = machine('bomb', server.url(), { max_entry_mb: 4, prefix: 'bomb:' });
    const input = seq(70_000);
    const key = keyOf(input);
    await admin.set(`bomb:${key}`, gzipSync(Buffer.alloc(64 * 2 ** 20), { level: 1 }));
    const bad = await cg(m, ['expand', key]);
    expect(bad.code).toBe(1);
    expect(bad.stdout.length).toBe(0);
    expect(bad.stderr).toMatch(
      new RegExp(
        `^cg: ${key}: the entry in the store at .* is corrupt \\(it holds more than store\\.max_entry_mb \\(4 MiB\\)[^\n]*\n$`,
      ),
    );
    const again = await cg(m, [], input);
    expect(again.stderr).toBe('');
    expect(again.out).toContain(`<<cg:${key}>>`);
    await expectExpands(m, key, input);
    expect((await cg(m, ['stats', '--json'])).code).toBe(0);
  });

  it('keeps teams apart by prefix, and store clear removes only its own prefix', async () => {
    const teamA = machine('team-a', server.url(), { prefix: 'team-a:' });
    const teamB = machine('team-b', server.url(), { prefix: 'team-b:' });
    const input = seq(80_000);
    const key = KEY_RE.exec((await cg(teamA, [], input)).out)![1]!;
    expect(await admin.exists(`team-a:${key}`)).toBe(1);
    expect((await cg(teamB, ['expand', key])).code).toBe(1);
    await admin.set('team-a:not-an-entry', 'keep');
    await admin.set('unrelated', 'keep');
    const info = JSON.parse((await cg(teamA, ['store', 'info', '--json'])).out);
    expect(info).toMatchObject({
      backend: 'redis',
      entries: 1,
      server: { prefix: 'team-a:', version: expect.any(String) },
    });
    expect(info.server.url).toBe(`redis://:***@127.0.0.1:${server.port}/0`);
    expect((await cg(teamA, ['store', 'path'])).out).toBe(
      `redis://:***@127.0.0.1:${server.port}/0#team-a:\n`,
    );
    const cleared = await cg(teamA, ['store', 'clear']);
    expect(cleared.out).toBe('removed 1 entry\n');
    expect(await admin.exists(`team-a:${key}`)).toBe(0);
    expect(await admin.get('team-a:not-an-entry')).toBe('keep');
    expect(await admin.get('unrelated')).toBe('keep');
  });

  it('gives an expiry to entries that have none on cg store prune', async () => {
    const m = machine('prune', server.url(), { prefix: 'prune:', ttl_days: 2 });
    const input = seq(90_000);
    const key = KEY_RE.exec((await cg(m, [], input)).out)![1]!;
    await admin.persist(`prune:${key}`);
    const r = await cg(m, ['store', 'prune']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(
      /Redis expires entries itself\): 1 entry \(.*\) remain; gave 1 entry without one an expiry/,
    );
    expect(await admin.ttl(`prune:${key}`)).toBeGreaterThan(2 * 86_400 - 60);
  });

  it('serves repeated expands from the local cache, even while the server is away', async () => {
    const writer = machine('writer', server.url());
    const reader = machine('reader', server.url(), { cache: true });
    const input = seq(110_000);
    const key = KEY_RE.exec((await cg(writer, [], input)).out)![1]!;
    await expectExpands(reader, key, input);
    expect(localEntries(reader)).toEqual([key]);
    const away = await cg(reader, ['expand', key], '', { CG_STORE_URL: 'redis://127.0.0.1:1/0' });
    expect(away.code).toBe(0);
    expect(away.stdout.equals(Buffer.from(input))).toBe(true);
  });

  it('counts a run stashed in Redis exactly in cg stats', async () => {
    const m = machine('stats', server.url());
    await cg(m, [], seq(50_000));
    const stats = JSON.parse((await cg(m, ['stats', '--json'])).out);
    expect(stats.outputs.rewritten).toBe(1);
    expect(stats.estimated.outputs).toBe(0);
    expect(stats.tokens.in).toBeGreaterThan(100_000);
  });

  it('never connects on a run that stashes nothing', async () => {
    const m = machine('quiet', 'redis://127.0.0.1:1/0');
    const r = await cg(m, [], 'hello\n');
    expect(r).toMatchObject({ code: 0, out: 'hello\n', stderr: '' });
  });
});

describe.skipIf(!REDIS_SERVER)(`a Redis server that is wrong, away or slow${NEEDS_REDIS}`, () => {
  let server: RedisServer;
  let silent: Server;
  let silentPort = 0;
  const sockets: Socket[] = [];
  beforeAll(async () => {
    server = await RedisServer.start({ password: 'right' });
    // Accepts connections and never answers: a server that hangs.
    silent = createServer((s) => sockets.push(s));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', () => r()));
    const addr = silent.address();
    silentPort = typeof addr === 'object' && addr ? addr.port : 0;
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await new Promise((r) => silent?.close(r));
    await server?.stop();
  });

  const input = seq(100_000);
  const cases: [string, () => string, RegExp][] = [
    ['a wrong password', () => server.url('wrong'), /WRONGPASS/],
    ['no password', () => server.url(''), /NOAUTH/],
    ['nothing listening on the port', () => 'redis://127.0.0.1:1/0', /ECONNREFUSED/],
    ['a server that never answers', () => `redis://127.0.0.1:${silentPort}/0`, /no answer within 300 ms/],
    ['a URL that does not parse', () => 'http://127.0.0.1/', /CG_STORE_URL: unsupported scheme "http:"/],
  ];

  it.each(cases)(
    'with %s, prints one line and the output passes through whole',
    async (_name, url, reason) => {
      const m = machine('wrong', url(), { timeout_ms: 300 });
      const r = await cg(m, [], input);
      expect(r.code).toBe(0);
      expect(r.stdout.equals(Buffer.from(input))).toBe(true);
      const lines = r.stderr.trimEnd().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^cg: store .*; lossless rewrites only$/);
      expect(lines[0]).toMatch(reason);
      expect(r.stderr).not.toContain('right');
    },
  );

  // The same mechanism as above under cg run; two kinds of failure suffice to pin it.
  it.each([cases[0]!, cases[3]!])(
    "with %s, cg run keeps the command's output and exit code",
    async (_name, url) => {
      const m = machine('wrong-run', url(), { timeout_ms: 300 });
      const r = await cg(m, ['run', '--shell', 'seq 1 100000; exit 3']);
      expect(r.code).toBe(3);
      expect(r.stdout.equals(Buffer.from(input))).toBe(true);
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    },
  );

  it('stashes in the local disk store instead when fallback is on, and that marker expands here', async () => {
    const m = machine('fallback', 'redis://127.0.0.1:1/0', { fallback: true });
    const r = await cg(m, [], input);
    expect(r.stderr).toMatch(
      /^cg: store redis:\/\/127\.0\.0\.1:1\/0: connect ECONNREFUSED.*; stashing in the local store at .* \(markers expand on this machine only\)\n$/,
    );
    const key = KEY_RE.exec(r.out)![1]!;
    expect(localEntries(m)).toEqual([key]);
    await expectExpands(m, key, input);
  });

  it('expands a key from the local store when Redis cannot be reached, fallback or not, with one line', async () => {
    const m = machine('expand-local', 'redis://127.0.0.1:1/0');
    // Stashed on this machine before Redis was set up (no CG_STORE_URL yet).
    const before = await cg(m, [], input, { CG_STORE_URL: '' });
    const key = KEY_RE.exec(before.out)![1]!;
    const r = await cg(m, ['expand', key]);
    expect(r.code).toBe(0);
    expect(r.stdout.equals(Buffer.from(input))).toBe(true);
    expect(r.stderr).toMatch(
      /^cg: store redis:\/\/127\.0\.0\.1:1\/0: connect ECONNREFUSED[^\n]*; read from the local store at [^\n]*\n$/,
    );
  });

  it('says in one line why expand cannot reach the store, and exits 1', async () => {
    const m = machine('wrong-expand', server.url('wrong'));
    const r = await cg(m, ['expand', '0123456789abcdef']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^cg: 0123456789abcdef: cannot read the store at .*\(WRONGPASS[^\n]*\n$/);
  });

  it('makes store clear fail with exit 1 when the server cannot be reached', async () => {
    const m = machine('wrong-clear', 'redis://127.0.0.1:1/0');
    const r = await cg(m, ['store', 'clear']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^cg: store (info|clear): redis:\/\/127\.0\.0\.1:1\/0: connect ECONNREFUSED/);
  });
});

describe.skipIf(!REDIS_SERVER)(`a Redis server restarted while runs are stashing${NEEDS_REDIS}`, () => {
  let server: RedisServer;
  beforeAll(async () => {
    server = await RedisServer.start();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it.each([
    ['with the local fallback', true],
    ['without a fallback', false],
  ])(
    'never leaves a marker that cannot expand (%s)',
    async (_name, fallback) => {
      const m = machine(`restart-${fallback}`, server.url(), { fallback, timeout_ms: 500 });
      const inputs = Array.from({ length: 16 }, (_, i) => seq(60_000 + i * 1009));
      const results: Run[] = new Array(inputs.length);
      let next = 0;
      let done = 0;
      // Three workers run cg back to back while the server goes down and comes back.
      const worker = async () => {
        while (next < inputs.length) {
          const i = next++;
          results[i] = await cg(m, [], inputs[i]!);
          done++;
        }
      };
      const workers = [worker(), worker(), worker()];
      while (done < 4) await new Promise((r) => setTimeout(r, 10));
      await server.stop();
      const downAt = done;
      while (done < downAt + 3 && done < inputs.length) await new Promise((r) => setTimeout(r, 10));
      await server.restart();
      await Promise.all(workers);
      // What is judged is that every marker expands, not how fast a loaded machine answers: the
      // reads back get a timeout the runs' 500 ms does not bound (the same store, the same fallback).
      writeFileSync(
        join(m.env.XDG_CONFIG_HOME!, 'cg', 'config.yaml'),
        `store:\n  fallback: ${fallback}\n  timeout_ms: 10000\n`,
      );

      let marked = 0;
      let passed = 0;
      for (const [i, r] of results.entries()) {
        expect(r.code).toBe(0);
        const key = KEY_RE.exec(r.out)?.[1];
        if (key) {
          marked++;
          await expectExpands(m, key, inputs[i]!);
        } else {
          passed++;
          expect(r.stdout.equals(Buffer.from(inputs[i]!))).toBe(true);
        }
      }
      // Some runs met the server away: they fell back, or passed their output through whole.
      const away = results.filter((r) => /^cg: store /.test(r.stderr)).length;
      expect(away).toBeGreaterThan(0);
      if (fallback) expect(passed).toBe(0);
      else expect(passed).toBe(away);
      expect(marked + passed).toBe(inputs.length);
    },
    180_000,
  );
});

describe.skipIf(!REDIS_SERVER)(`Redis ACL users and TLS${NEEDS_REDIS}`, () => {
  it('works as an ACL user limited to its prefix, and refuses what the ACL does not allow', async () => {
    const server = await RedisServer.start({
      args: ['--user', 'default', 'off', '--user', 'agent', 'on', '>agent-pw', '~team:*', '+@all'],
    });
    try {
      const input = seq(100_000);
      const ok = machine('acl', server.url('agent-pw', 'agent'), { prefix: 'team:' });
      const r = await cg(ok, [], input);
      expect(r.stderr).toBe('');
      await expectExpands(ok, KEY_RE.exec(r.out)![1]!, input);
      const outside = machine('acl-outside', server.url('agent-pw', 'agent'));
      const denied = await cg(outside, [], input);
      expect(denied.stdout.equals(Buffer.from(input))).toBe(true);
      expect(denied.stderr).toMatch(
        /^cg: store redis:\/\/agent:\*\*\*@.*NOPERM.*; lossless rewrites only\n$/,
      );
      expect(denied.stderr).not.toContain('agent-pw');
    } finally {
      await server.stop();
    }
  });

  const hasOpenssl = spawnSync('sh', ['-c', 'command -v openssl']).status === 0;

  it.skipIf(!hasOpenssl)(
    'connects over TLS with rediss://, trusting the CA given in NODE_EXTRA_CA_CERTS',
    async () => {
      const dir = tempDir('cg-tls-');
      const sh = (cmd: string) => {
        const r = spawnSync('sh', ['-c', cmd], { cwd: dir, encoding: 'utf8' });
        if (r.status !== 0) throw new Error(r.stderr);
      };
      sh(
        'openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=cg-test-ca -keyout ca.key -out ca.pem 2>/dev/null',
      );
      sh(
        'openssl req -newkey rsa:2048 -nodes -subj /CN=127.0.0.1 -keyout server.key -out server.csr 2>/dev/null && ' +
          'printf "subjectAltName=IP:127.0.0.1\\n" > san.ext && ' +
          'openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 -extfile san.ext -out server.pem 2>/dev/null',
      );
      const server = await RedisServer.start({
        tls: true,
        args: [
          '--tls-cert-file',
          join(dir, 'server.pem'),
          '--tls-key-file',
          join(dir, 'server.key'),
          '--tls-ca-cert-file',
          join(dir, 'ca.pem'),
          '--tls-auth-clients',
          'no',
        ],
      });
      try {
        const input = seq(100_000);
        const m = machine('tls', server.url());
        expect(m.env.CG_STORE_URL).toMatch(/^rediss:\/\//);
        const trusted = { NODE_EXTRA_CA_CERTS: join(dir, 'ca.pem') };
        const r = await cg(m, [], input, trusted);
        expect(r.stderr).toBe('');
        const key = KEY_RE.exec(r.out)![1]!;
        const back = await cg(m, ['expand', key], '', trusted);
        expect(back.stdout.equals(Buffer.from(input))).toBe(true);
        // Without the CA the certificate is refused: one line, the output whole.
        const untrusted = await cg(m, [], input);
        expect(untrusted.stdout.equals(Buffer.from(input))).toBe(true);
        expect(untrusted.stderr).toMatch(/^cg: store rediss:\/\/.*certificate.*; lossless rewrites only\n$/);
      } finally {
        await server.stop();
      }
    },
  );
});
