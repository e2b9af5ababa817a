/**
 * The requests an MCP server has received and not yet answered, tracked at its transport: a
 * request is in flight from the moment its message is read until its response has been written
 * (or the client cancelled it). When the client closes stdin, the server waits for idle() before
 * closing, so a call that was still running — a large cg_compress — is answered, not dropped.
 */

type Id = string | number;

interface Message {
  id?: Id;
  method?: string;
  params?: { requestId?: Id };
}

/** The part of the SDK's transport this needs; kept structural so no SDK type is imported. */
export interface TrackableTransport {
  onmessage?: ((message: never, extra?: never) => void) | undefined;
  send(message: never, options?: never): Promise<void>;
}

export class InFlight {
  private readonly open = new Set<Id>();
  private waiters: (() => void)[] = [];

  /** Wraps a connected transport's message delivery and send; call after server.connect(). */
  track(transport: TrackableTransport): void {
    const deliver = transport.onmessage as ((m: Message, extra?: unknown) => void) | undefined;
    if (!deliver) throw new Error('internal: track the transport after connecting it');
    transport.onmessage = ((message: Message, extra?: unknown) => {
      if (message.id !== undefined && typeof message.method === 'string') this.open.add(message.id);
      else if (message.method === 'notifications/cancelled' && message.params?.requestId !== undefined)
        this.settle(message.params.requestId);
      deliver(message, extra);
    }) as TrackableTransport['onmessage'];
    const send = transport.send.bind(transport) as (m: Message, options?: unknown) => Promise<void>;
    transport.send = (async (message: Message, options?: unknown) => {
      try {
        await send(message, options);
      } finally {
        if (message.id !== undefined && message.method === undefined) this.settle(message.id);
      }
    }) as TrackableTransport['send'];
  }

  get size(): number {
    return this.open.size;
  }

  /** Resolves once no request is in flight. */
  idle(): Promise<void> {
    if (this.open.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private settle(id: Id): void {
    this.open.delete(id);
    if (this.open.size > 0) return;
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }
}
