/**
 * Retrieval inside the proxy, around compactRequest (the server's one hook): for a session whose
 * client cannot open a marker itself, the proxy offers cg_expand and answers it (rounds.ts).
 *
 *   session    the client's id (as the replay uses), else a key of what never changes in the
 *              conversation (system prompt, first messages as the client wrote them);
 *   decision   made once, on the first request the proxy put a marker into (state.ts): `tool`
 *              when the request offers no shell-like tool and no cg_expand of the client's own
 *              (`proxy.retrieval: auto`; `always` ignores a shell; `never` never decides), else
 *              `client`; a `client` session costs nothing more, ever;
 *   each turn  of a `tool` session: the splices that fit are written into the client's body and
 *              the tool is added, before compaction — so the engine sees the conversation the
 *              model had (cg_expand results stay verbatim: the gates' `cg expand output`) and its
 *              replay keeps every earlier message as sent; on the deciding turn the tool goes into
 *              the compacted body. The tool's bytes are the same every turn (tool.ts).
 * Anything that does not read (an undecodable body, one that is not a JSON object) goes the plain
 * way, exactly as without retrieval.
 */

import type { CgConfig } from '../../config.js';
import { valueAt } from '../../json/payload.js';
import type { RecordBackend } from '../../session/records.js';
import { keyOf } from '../../store/keys.js';
import { hasMarker } from '../../store/marker.js';
import type { Store } from '../../store/store.js';
import { decodeBody } from '../body.js';
import type { CompactedRequest } from '../compact-request.js';
import type { RetrievalMode } from '../config.js';
import { rawHeader } from '../headers.js';
import { requestSession } from '../session-id.js';
import type { Forwarded } from '../upstream.js';
import { answerCall } from './answer.js';
import { type BodyMap, byteEdits, type Format, itemBytes, mapBody, memberValue } from './body-map.js';
import { clientTools, toolNames } from './detect.js';
import { anthropicOps } from './formats/anthropic.js';
import { openaiOps } from './formats/openai.js';
import { responsesOps } from './formats/responses.js';
import type { FormatOps } from './formats/types.js';
import { type RoundDeps, respond, type TurnRequest } from './rounds.js';
import { spliceEdits } from './splice.js';
import { type Decision, RetrievalSessions, type SessionRetrieval } from './state.js';
import { EXPAND_TOOL, toolEdit } from './tool.js';

export interface RetrievalOptions {
  mode: RetrievalMode;
  maxRounds: number;
  maxBytes: number;
  config: CgConfig;
  store: Store | null;
  /** Where session records live (the replay's backend); undefined: none, state in memory only. */
  records: RecordBackend | undefined;
  /** The ledger's environment, for the expands the proxy answers. */
  statsEnv: NodeJS.ProcessEnv;
}

/** A request ready to go: what compaction made of it and, for a `tool` session, its turn. */
export interface Prepared {
  compacted: CompactedRequest;
  body: Buffer;
  /** The body is not the client's bytes: it goes plain, with its own content-length. */
  plain: boolean;
  turn?: Turn;
}

interface Turn extends TurnRequest {
  key: string;
  state: SessionRetrieval;
  label: string;
}

/** compactRequest for one body: its raw header list, and its text when already decoded. */
export type Compact = (
  body: Buffer,
  rawHeaders: readonly string[],
  text?: string,
) => Promise<CompactedRequest>;

export interface Retrieval {
  prepare(raw: Buffer, format: Format, rawHeaders: readonly string[], compact: Compact): Promise<Prepared>;
  /** Sends a prepared `tool` turn upstream and answers the client (rounds.ts). */
  respond(
    turn: Turn,
    deps: Omit<RoundDeps, 'maxRounds' | 'answer' | 'record' | 'delivered'>,
  ): Promise<Forwarded & { rounds: number }>;
}

/** Stored responses whose session the proxy remembers (each a short id and key). */
const STORED_RESPONSES = 4096;

const OPS: Record<Format, FormatOps> = {
  anthropic: anthropicOps,
  openai: openaiOps,
  responses: responsesOps,
};

/** A message short enough to read whose role puts it before the conversation (a system prompt). */
function isPreamble(bytes: Buffer): boolean {
  if (bytes.length > 64 * 1024) return false;
  try {
    const role = valueAt(JSON.parse(bytes.toString('utf8')), 'role');
    return role === 'system' || role === 'developer';
  } catch {
    return false;
  }
}

/** A session key from what never changes in a conversation: its system prompt and first message. */
function derivedKey(map: BodyMap, format: Format): string | undefined {
  const parts: Buffer[] = [];
  for (const name of ['system', 'instructions']) {
    const s = map.members.get(name);
    if (s) parts.push(map.bytes.subarray(s.start, s.end));
  }
  const c = map.conversation;
  if (c?.kind === 'string') parts.push(map.bytes.subarray(c.start, c.end));
  for (let i = 0; i < (map.items?.length ?? 0); i++) {
    const item = itemBytes(map, i)!;
    parts.push(item);
    if (!isPreamble(item)) break;
  }
  if (parts.length === 0) return undefined;
  // Each part with its length before it: no two lists of parts give the same bytes.
  const framed = parts.flatMap((p) => [Buffer.from(`${p.length}:`), p]);
  return `derived\u0000${keyOf(Buffer.concat([Buffer.from(`${format}\u0000`), ...framed]))}`;
}

/** Whether the request's tools already hold one named cg_expand (cheap when none mentions it). */
function hasExpandTool(map: BodyMap, format: Format): boolean {
  const span = map.members.get('tools');
  if (!span || !map.bytes.subarray(span.start, span.end).includes(`"${EXPAND_TOOL}"`)) return false;
  return toolNames(memberValue(map, 'tools'), format).some((t) => t.name === EXPAND_TOOL);
}

/** How the session goes, from the request that got its first marker. */
function decisionFor(mode: RetrievalMode, map: BodyMap, format: Format): Decision {
  // Chat Completions' legacy `functions` cannot sit beside `tools`.
  if (format === 'openai' && map.members.has('functions') && !map.members.has('tools')) return 'client';
  const tools = clientTools(memberValue(map, 'tools'), format);
  if (tools.expand) return 'client';
  return mode === 'auto' && tools.shell ? 'client' : 'tool';
}

/** The raw header list without the body's own length and encoding (the body handed on is plain). */
function plainHeaders(raw: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (name !== 'content-encoding' && name !== 'content-length') out.push(raw[i]!, raw[i + 1]!);
  }
  return out;
}

function isStateful(map: BodyMap, format: Format): boolean {
  if (format !== 'responses') return false;
  return (
    (memberValue(map, 'previous_response_id') ?? null) !== null ||
    (memberValue(map, 'conversation') ?? null) !== null
  );
}

/** A compacted request going the plain way: its body, plain when compaction rewrote it. */
export function plainPrepared(c: CompactedRequest): Prepared {
  return { compacted: c, body: c.body, plain: c.rewritten };
}

export function createRetrieval(opts: RetrievalOptions): Retrieval {
  const sessions = new RetrievalSessions(opts.records);
  const plainOf = plainPrepared;

  /**
   * Stored responses the proxy handed a client, by id, to their session: a request that continues
   * one (previous_response_id) sends only what is new, so nothing else in it names the session.
   */
  const stored = new Map<string, string>();
  const remember = (id: string, key: string) => {
    stored.delete(id);
    stored.set(id, key);
    if (stored.size > STORED_RESPONSES) stored.delete(stored.keys().next().value as string);
  };
  const continuing = (map: BodyMap): string | undefined => {
    const previous = memberValue(map, 'previous_response_id');
    return typeof previous === 'string' ? stored.get(previous) : undefined;
  };

  /** Each session's requests enter in the order they came, until their compaction has begun. */
  const arrivals = new Map<string, Promise<void>>();
  const enter = async (key: string): Promise<() => void> => {
    const before = arrivals.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((r) => {
      release = r;
    });
    arrivals.set(key, mine);
    await before;
    return () => {
      if (arrivals.get(key) === mine) arrivals.delete(key);
      release();
    };
  };

  /** What a turn keeps of the client's body: its conversation's length and last message, read now. */
  const anchorsOf = (raw: BodyMap, format: Format) => {
    const count = raw.items?.length ?? (raw.conversation?.kind === 'string' ? 1 : 0);
    const last = raw.items && count > 0 ? itemBytes(raw, count - 1) : undefined;
    return {
      count,
      ...(last !== undefined ? { lastHash: keyOf(last) } : {}),
      stateful: isStateful(raw, format),
    };
  };

  const turnOf = (
    body: Buffer,
    anchors: ReturnType<typeof anchorsOf>,
    format: Format,
    key: string,
    state: SessionRetrieval,
    c: CompactedRequest,
  ): Turn => ({ ops: OPS[format], format, body, ...anchors, key, state, label: c.session ?? key });

  /** The compaction of a `tool` session's turn: splices and tool written into the client's body first. */
  const toolTurn = async (
    raw: BodyMap,
    format: Format,
    rawHeaders: readonly string[],
    compact: Compact,
    key: string,
    state: SessionRetrieval,
    go: (run: Promise<CompactedRequest>) => Promise<CompactedRequest>,
  ): Promise<Prepared | undefined> => {
    // A client that took up a cg_expand of its own since has the name: two tools cannot share it.
    const taken = hasExpandTool(raw, format);
    const tool = taken ? undefined : toolEdit(raw, format);
    if (!tool && !taken) return undefined;
    const anchors = anchorsOf(raw, format);
    // Results of calls the body does not hold (a stored response's) go in after compaction: the
    // engine could not tell them from a tool output of the client's.
    const all = [...state.splices.values()];
    const before = all.filter((s) => s.op !== 'input-start');
    const after = all.filter((s) => s.op === 'input-start');
    const c = await go(
      compact(
        byteEdits(raw.bytes, [...spliceEdits(raw, before), ...(tool ? [tool] : [])]),
        plainHeaders(rawHeaders),
      ),
    );
    const sent = after.length > 0 ? mapBody(c.body, format) : undefined;
    const late = sent ? spliceEdits(sent, after) : [];
    const body = sent && late.length > 0 ? byteEdits(sent.bytes, late) : c.body;
    return { compacted: c, body, plain: true, turn: turnOf(body, anchors, format, key, state, c) };
  };

  return {
    async prepare(raw, format, rawHeaders, compact) {
      if (opts.mode === 'never' || !opts.store || raw.length === 0)
        return plainOf(await compact(raw, rawHeaders));
      const decoded = await decodeBody(raw, rawHeader(rawHeaders, 'content-encoding'));
      if (!decoded.ok) return plainOf(await compact(raw, rawHeaders));
      // Decoded at most once: what is read here is handed to the compaction.
      let text: string | undefined;
      const textOf = () => {
        text ??= decoded.body.toString('utf8');
        return text;
      };
      const id = requestSession(format, textOf, rawHeaders);
      let map = id === undefined ? mapBody(decoded.body, format) : undefined;
      const key =
        id !== undefined
          ? `id\u0000${format}\u0000${id}`
          : map && (continuing(map) ?? derivedKey(map, format));
      if (key === undefined) return plainOf(await compact(raw, rawHeaders, text));
      const release = await enter(key);
      let released = false;
      const go = (run: Promise<CompactedRequest>) => {
        released = true;
        release();
        return run;
      };
      try {
        const state = await sessions.of(key);
        if (state.decision === 'client') return plainOf(await go(compact(raw, rawHeaders, text)));
        if (state.decision === 'tool') {
          map ??= mapBody(decoded.body, format);
          const done = map && (await toolTurn(map, format, rawHeaders, compact, key, state, go));
          return done ?? plainOf(await go(compact(raw, rawHeaders, text)));
        }
        // Not decided yet: decided on the first request the proxy put a marker into.
        const anchors = map ? anchorsOf(map, format) : undefined;
        const c = await go(compact(raw, rawHeaders, text));
        if (!c.rewritten || c.body.indexOf('<<cg:') < 0) return plainOf(c);
        map ??= mapBody(decoded.body, format);
        if (!map || !hasMarker(c.body.toString('utf8'))) return plainOf(c);
        const decision = decisionFor(opts.mode, map, format);
        // Written behind the request: the decision holds in memory from now on.
        void sessions.decide(key, state, decision);
        const sentMap = decision === 'tool' ? mapBody(c.body, format) : undefined;
        const tool = sentMap && toolEdit(sentMap, format);
        if (!tool) return plainOf(c);
        const body = byteEdits(c.body, [tool]);
        return {
          compacted: c,
          body,
          plain: true,
          turn: turnOf(body, anchors ?? anchorsOf(map, format), format, key, state, c),
        };
      } finally {
        if (!released) release();
      }
    },

    respond(turn, deps) {
      return respond(turn, {
        ...deps,
        maxRounds: opts.maxRounds,
        answer: (call) =>
          answerCall(call.args, {
            config: opts.config,
            store: opts.store,
            session: turn.label,
            env: opts.statsEnv,
            maxBytes: opts.maxBytes,
          }),
        record: (splices) => sessions.add(turn.key, turn.state, splices),
        delivered: (id) => remember(id, turn.key),
      });
    },
  };
}
