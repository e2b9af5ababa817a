/**
 * The connection to one Redis server, made on first use and bounded in time everywhere: each call
 * has one deadline for connecting and its command together (timeout_ms, plus time for the bytes a
 * big entry moves), there are no reconnection attempts and no offline queue, and a connection given
 * up is destroyed at once (not left to close politely with a server that no longer answers), so a
 * server that is down, stopped or slow costs the one wait the message names and then fails. After
 * a failure the link stays down (fails at once) for DOWN_MS, then tries again: a short cg run never
 * waits twice, a long-lived one (cg mcp) recovers.
 *
 * The client (ioredis) is imported only here, only when a command is about to be sent: a Redis URL
 * in the config costs nothing on runs that stash and expand nothing. The socket holds the process
 * open only while a command is in flight, so cg exits as soon as its work is done without a close
 * call from every command that might have used the store.
 *
 * Failures carry the server's or the socket's message, first line only, and never a value or a
 * password (ioredis puts neither in its messages; the URL is only ever shown in display form).
 */
import { isIP } from 'node:net';
import type { RedisTarget } from './redis-url.js';

type Redis = import('ioredis').Redis;

const DOWN_MS = 30_000;
/** A big entry is allowed this much extra time per MiB it moves (≥ 10 MB/s). */
const MS_PER_MIB = 100;

/** `down`: the server cannot be reached (or refused us); `reply`: it answered with an error. */
export class RedisFailure extends Error {
  constructor(
    readonly kind: 'down' | 'reply',
    message: string,
  ) {
    super(message);
  }
}

export interface RedisLink {
  /** The server in display form (no password). */
  readonly display: string;
  /**
   * Runs `op` on a connected client within the deadline; `bytes` is what the op moves. Throws
   * RedisFailure, never anything else.
   */
  run<T>(op: (client: Redis) => Promise<T>, bytes?: number): Promise<T>;
  /** Why the link is down right now, if it is (a run would fail at once). */
  downReason(): string | undefined;
  close(): void;
}

/** First line, at most 200 characters, without a closing full stop (it is embedded in ours). */
function oneLine(message: string): string {
  const first = message.split('\n')[0]!.trim().replace(/\.$/, '');
  return first.length > 200 ? `${first.slice(0, 199)}…` : first;
}

/** Errors that mean "we may not use this server" rather than "this one command failed". */
function isAccessError(message: string): boolean {
  return /^(NOAUTH|WRONGPASS|NOPERM|ERR AUTH|LOADING|MASTERDOWN)\b/.test(message);
}

let clientModule: Promise<typeof import('ioredis').Redis> | undefined;
/** The client module, imported once; its loading is ours, not the server's, and no deadline counts it. */
function loadClient(): Promise<typeof import('ioredis').Redis> {
  clientModule ??= import('ioredis').then((m) => {
    const mod = m as unknown as Record<string, unknown> & { default?: Record<string, unknown> };
    return (mod.Redis ?? mod.default?.Redis ?? mod.default) as typeof import('ioredis').Redis;
  });
  return clientModule;
}

export function createRedisLink(target: RedisTarget, timeoutMs: number): RedisLink {
  let client: Redis | undefined;
  let connecting: Promise<Redis> | undefined;
  let lastError: string | undefined;
  let down: { reason: string; at: number } | undefined;
  let inFlight = 0;

  const hold = (on: boolean) => {
    const stream = (client as unknown as { stream?: { ref?: () => void; unref?: () => void } })?.stream;
    if (on) stream?.ref?.();
    else stream?.unref?.();
  };

  function fail(reason: string): RedisFailure {
    down = { reason, at: Date.now() };
    const c = client;
    client = undefined;
    connecting = undefined;
    c?.disconnect();
    return new RedisFailure('down', reason);
  }

  async function connect(): Promise<Redis> {
    const Redis = await loadClient();
    const c = new Redis({
      host: target.host,
      port: target.port,
      db: target.db,
      ...(target.username ? { username: target.username } : {}),
      ...(target.password ? { password: target.password } : {}),
      // SNI carries a host name only (RFC 6066); an IP address is checked against the certificate anyway.
      ...(target.tls ? { tls: isIP(target.host) ? {} : { servername: target.host } } : {}),
      connectionName: 'cg',
      lazyConnect: true,
      enableOfflineQueue: false,
      retryStrategy: () => null,
      maxRetriesPerRequest: 0,
      autoResendUnfulfilledCommands: false,
      connectTimeout: timeoutMs,
      // ioredis ends a connection it is told to drop and destroys it only after this long (2 s by
      // default): with a stopped server that kept every failed run alive 2 s past its message.
      disconnectTimeout: 0,
      // RESP2: every server version speaks it, and cg needs nothing RESP3 adds.
      protocol: 2,
    });
    // Without a listener an 'error' event would crash the process; the message explains a failure.
    c.on('error', (err: Error) => {
      lastError = oneLine(err.message);
    });
    client = c;
    try {
      await withDeadline(c.connect(), timeoutMs, `no answer within ${timeoutMs} ms`);
      return c;
    } catch (err) {
      const why = lastError ?? oneLine(err instanceof Error ? err.message : String(err));
      // Given up on already (a caller's deadline passed first): that failure and its reason stand.
      if (client !== c) throw new RedisFailure('down', downReason() ?? why);
      throw fail(why);
    }
  }

  const downReason = () => (down && Date.now() - down.at < DOWN_MS ? down.reason : undefined);

  return {
    display: target.display,
    downReason,

    async run(op, bytes = 0) {
      const reason = downReason();
      if (reason) throw new RedisFailure('down', reason);
      try {
        await loadClient();
      } catch (err) {
        throw new RedisFailure('down', oneLine(err instanceof Error ? err.message : String(err)));
      }
      inFlight++;
      hold(true);
      const ms = timeoutMs + Math.ceil(bytes / 2 ** 20) * MS_PER_MIB;
      const until = Date.now() + ms;
      const within = <T>(p: Promise<T>) =>
        withDeadline(p, Math.max(0, until - Date.now()), `no answer within ${ms} ms`);
      try {
        connecting ??= connect();
        let c: Redis;
        try {
          c = await within(connecting);
        } catch (err) {
          throw err instanceof RedisFailure && !downReason() ? fail(err.message) : err;
        }
        hold(true);
        try {
          return await within(op(c));
        } catch (err) {
          if (err instanceof RedisFailure) throw fail(err.message); // the deadline passed
          const message = oneLine(err instanceof Error ? err.message : String(err));
          const isReply = err instanceof Error && err.name === 'ReplyError';
          if (isReply && !isAccessError(message)) throw new RedisFailure('reply', message);
          throw fail(isReply ? message : (lastError ?? message));
        }
      } catch (err) {
        if (err instanceof RedisFailure) throw err;
        throw fail(oneLine(err instanceof Error ? err.message : String(err)));
      } finally {
        inFlight--;
        if (inFlight === 0) hold(false);
      }
    },

    close() {
      client?.disconnect();
      client = undefined;
      connecting = undefined;
    },
  };
}

/** The promise, or a 'down' RedisFailure once `ms` have passed. */
function withDeadline<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new RedisFailure('down', message)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
