/**
 * What `cg run` does with the command's output as it arrives. It holds the bytes in memory, at most
 * `cap` of them, for compaction once the command ends; or, once told to (raw output, a broken
 * config) or once the output outgrows the cap, it streams: first everything held, then each chunk
 * as it comes, so the reader gets every byte, in order, and cg holds nothing more. The source is
 * paused while the reader is slow (backpressure reaches the command as a full pipe), and can be
 * abandoned when the reader is gone.
 */
import type { Readable, Writable } from 'node:stream';
import { Accumulator } from '../io.js';

export class Capture {
  /** Bytes and newlines seen so far (the progress line shows them). */
  bytes = 0;
  lines = 0;
  private held: Accumulator | undefined;
  private last: Promise<void> = Promise.resolve();
  private onStream: (() => void) | undefined;

  /** `sink` may be a function: it is called when the first byte streams (cg run: process.stdout). */
  constructor(
    private readonly source: Readable,
    private readonly sink: Writable | (() => Writable),
    private readonly cap: number,
  ) {
    this.held = new Accumulator(Math.min(cap, 64 * 1024), cap);
    source.on('data', (chunk: Buffer) => this.push(chunk));
  }

  get streaming(): boolean {
    return this.held === undefined;
  }

  /** Calls `f` once, when streaming starts (at once if it has). */
  whenStreaming(f: () => void): void {
    if (this.streaming) f();
    else this.onStream = f;
  }

  /** Switches to streaming: what was held goes out first. Idempotent. */
  stream(): void {
    const held = this.held;
    if (!held) return;
    this.held = undefined;
    if (held.used > 0) this.write(held.result());
    this.onStream?.();
  }

  /** The whole output, while it is still held (not streamed). */
  output(): Buffer {
    if (!this.held) throw new Error('the output was streamed, not held');
    return this.held.result();
  }

  /** The whole output, handed over: the capture keeps no reference, so it can be let go of. */
  takeOutput(): Buffer {
    const out = this.output();
    this.held = new Accumulator(0);
    return out;
  }

  /** Resolves once everything streamed so far has been handed to the sink. */
  flushed(): Promise<void> {
    return this.last;
  }

  /** Stops reading: the command's next write finds the pipe closed (SIGPIPE, as in a shell pipeline). */
  abandon(): void {
    this.source.destroy();
  }

  private push(chunk: Buffer): void {
    this.bytes += chunk.length;
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) this.lines++;
    if (this.held && this.held.used + chunk.length > this.cap) this.stream();
    if (this.held) this.held.push(chunk);
    else this.write(chunk);
  }

  private write(chunk: Buffer): void {
    const sink = typeof this.sink === 'function' ? this.sink() : this.sink;
    // A write error arrives as the sink's 'error' event (the caller listens); here it only settles.
    this.last = new Promise((resolve) => {
      if (sink.write(chunk, () => resolve())) return;
      this.source.pause();
      sink.once('drain', () => this.source.resume());
    });
  }
}
