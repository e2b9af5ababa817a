/**
 * What the retrieval rounds need of each provider's answers (one file per format beside this):
 * the tool calls in a non-streamed answer or a stream's events, the answer as messages of a
 * continued request, the same answer with the proxy's calls taken out for the client, and the
 * results of answered calls in the shape the format sends them back.
 */
import type { Answer } from '../answer.js';
import type { Splice } from '../splice.js';
import type { SseEvent } from '../sse.js';

export interface Call {
  id: string;
  name: string;
  /** The arguments as JSON text. */
  args: string;
  /** A call of the proxy's own tool (cg_expand), which the proxy answers. */
  own: boolean;
}

export interface Reply {
  calls: Call[];
  /** The model stopped to have its calls answered. */
  awaitsResults: boolean;
  /** The answer as messages (Responses: items) of a continued request, as JSON texts. */
  assistant: string[];
  /** Responses: the response's id (a later request may continue it by previous_response_id). */
  id?: string;
}

export interface Answered {
  call: Call;
  answer: Answer;
}

/** A streamed answer read event by event. */
export interface StreamReader {
  push(e: SseEvent): void;
  /** A call of one of the client's tools was seen. */
  readonly clientCall: boolean;
  readonly ownCall: boolean;
  /** The stream's last event (or an error event) was seen. */
  readonly done: boolean;
  reply(): Reply;
  /**
   * The event as the client gets it with the proxy's calls taken out: the event itself (its raw
   * bytes) where nothing of it changes, written anew where indices move, undefined for an event of
   * a proxy call. Asked in order, after push, for every event the client gets.
   */
  outgoing(e: SseEvent): SseEvent | undefined;
}

export interface FormatOps {
  readJson(body: Record<string, unknown>): Reply | undefined;
  /** The non-streamed answer with the proxy's calls taken out. */
  stripJson(body: Record<string, unknown>): Record<string, unknown>;
  stream(): StreamReader;
  /** The results of answered calls as messages (items) of the continued request. */
  results(answered: readonly Answered[]): string[];
  /**
   * For an answer that called the client's tools too: what the client's next request needs so the
   * model sees its whole answer and a result for every call. `at`: the index the client's copy of
   * the answer will have in its conversation; `stateful`: the request continues a stored response.
   */
  mixed(reply: Reply, answered: readonly Answered[], at: number, stateful: boolean): Splice[];
}

/**
 * What every format's stream reader keeps of the calls it has seen: StreamReader's flags, and the
 * indices of the proxy's own calls, which the client's copy of the stream leaves out (the calls
 * after one move down by one).
 */
export abstract class StreamCalls {
  protected readonly own = new Set<number>();
  clientCall = false;
  ownCall = false;
  done = false;

  /** A call started at this index: the proxy's own or the client's. */
  protected sawCall(index: number, own: boolean): void {
    if (own) {
      this.own.add(index);
      this.ownCall = true;
    } else this.clientCall = true;
  }

  /** How many of the proxy's own calls stand before this index. */
  protected ownBefore(index: number): number {
    let n = 0;
    for (const i of this.own) if (i < index) n++;
    return n;
  }
}
