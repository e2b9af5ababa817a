/**
 * The two Lua scripts a shared session record (shared-records.ts) is read and written with, and
 * their replies. A record is one Redis hash:
 *
 *   e      a token naming this life of the hash (a record that expired and was made again is another)
 *   g      the generation now: one more for every write
 *   b, bg  the whole record (record.ts's first line) as of generation bg
 *   d<n>   the line (record.ts's deltaLine) written at generation n, for every n after bg
 *
 * READ answers what was written since a generation the caller saw: nothing (`same`), the lines
 * after it (`since`), or the whole record with its lines (`full`: the caller saw none, another life,
 * or a generation the record was rewritten past); `none` when there is no record. WRITE is
 * compare-and-set: it writes only if the hash is still at the generation (and life) the caller
 * saw — a line, or the whole record, which drops every line before it — and otherwise answers as
 * READ would, so the loser learns what it missed in the same round trip. Both slide the expiry.
 * Scripts run atomically on the server and touch one key, so Redis Cluster needs nothing more.
 */
import { createHash } from 'node:crypto';

type Client = import('ioredis').Redis;

const SINCE = `
local function since(key, life, known)
  local g = tonumber(redis.call('HGET', key, 'g') or '0')
  if g == 0 then return {0, '', 'none'} end
  local now = redis.call('HGET', key, 'e') or ''
  if now == life and known == g then return {g, now, 'same'} end
  local bg = tonumber(redis.call('HGET', key, 'bg') or '0')
  local out
  local from
  if now == life and known >= bg and known < g then
    out = {g, now, 'since'}
    from = known + 1
  else
    out = {g, now, 'full', redis.call('HGET', key, 'b') or ''}
    from = bg + 1
  end
  for n = from, g do out[#out + 1] = redis.call('HGET', key, 'd' .. n) or '' end
  return out
end
`;

/** KEYS[1] the hash; ARGV life, generation seen (-1: none), expiry in ms (0: none). */
const READ = `${SINCE}
local r = since(KEYS[1], ARGV[1], tonumber(ARGV[2]))
if r[1] > 0 and tonumber(ARGV[3]) > 0 then redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
return r
`;

/** KEYS[1] the hash; ARGV life, generation seen, 'line' | 'whole', the text, expiry in ms, a new life. */
const WRITE = `${SINCE}
local key = KEYS[1]
local known = tonumber(ARGV[2])
local g = tonumber(redis.call('HGET', key, 'g') or '0')
local life = redis.call('HGET', key, 'e') or ''
if g ~= known or (g > 0 and life ~= ARGV[1]) then
  local r = since(key, ARGV[1], known)
  table.insert(r, 1, 0)
  return r
end
if g == 0 then
  life = ARGV[6]
  redis.call('HSET', key, 'e', life)
end
if ARGV[3] == 'line' and g > 0 then
  redis.call('HSET', key, 'd' .. (g + 1), ARGV[4], 'g', g + 1)
else
  local bg = tonumber(redis.call('HGET', key, 'bg') or '0')
  for n = bg + 1, g do redis.call('HDEL', key, 'd' .. n) end
  redis.call('HSET', key, 'b', ARGV[4], 'bg', g + 1, 'g', g + 1)
end
if tonumber(ARGV[5]) > 0 then redis.call('PEXPIRE', key, ARGV[5]) end
return {1, g + 1, life}
`;

interface Script {
  text: string;
  sha: string;
}

const script = (text: string): Script => ({ text, sha: createHash('sha1').update(text).digest('hex') });
const READ_SCRIPT = script(READ);
const WRITE_SCRIPT = script(WRITE);

/** Where a reader stands: the record's life and generation it has seen. */
export interface Seen {
  life: string;
  gen: number;
}

/** What the server said is there since what the caller had seen. */
export type Since =
  | { kind: 'none' }
  | { kind: 'same'; at: Seen }
  | { kind: 'since'; at: Seen; lines: string[] }
  | { kind: 'full'; at: Seen; base: string; lines: string[] };

export type Written = { ok: true; at: Seen } | { ok: false; since: Since };

/** EVALSHA, or EVAL when the server does not hold the script yet (it then does). */
async function run(c: Client, s: Script, key: string, args: (string | number)[]): Promise<unknown> {
  try {
    return await c.evalsha(s.sha, 1, key, ...args);
  } catch (err) {
    if (err instanceof Error && /^NOSCRIPT/.test(err.message)) return c.eval(s.text, 1, key, ...args);
    throw err;
  }
}

function sinceOf(reply: unknown[]): Since {
  const [gen, life, kind, ...rest] = reply as [number, string, string, ...string[]];
  const at = { life: String(life), gen: Number(gen) };
  if (kind === 'same') return { kind, at };
  if (kind === 'since') return { kind, at, lines: rest.map(String) };
  if (kind === 'full') return { kind, at, base: String(rest[0] ?? ''), lines: rest.slice(1).map(String) };
  return { kind: 'none' };
}

/** What was written to the record at key since `seen` (undefined: nothing seen yet). */
export async function readSince(
  c: Client,
  key: string,
  seen: Seen | undefined,
  expireMs: number,
): Promise<Since> {
  const reply = await run(c, READ_SCRIPT, key, [seen?.life ?? '', seen?.gen ?? -1, expireMs]);
  return sinceOf(reply as unknown[]);
}

/**
 * Writes `text` — one line after the record, or the whole record (`whole`) — if the record is
 * still as `seen` (gen 0: there is none); otherwise what was written since. `life` names a record
 * this write makes.
 */
export async function writeIfAt(
  c: Client,
  key: string,
  seen: Seen,
  text: string,
  whole: boolean,
  expireMs: number,
  life: string,
): Promise<Written> {
  const reply = (await run(c, WRITE_SCRIPT, key, [
    seen.life,
    seen.gen,
    whole ? 'whole' : 'line',
    text,
    expireMs,
    life,
  ])) as unknown[];
  if (reply[0] === 1) return { ok: true, at: { gen: Number(reply[1]), life: String(reply[2]) } };
  return { ok: false, since: sinceOf(reply.slice(1)) };
}
