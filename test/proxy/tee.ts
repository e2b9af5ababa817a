/**
 * A TCP tap between a real client and the proxy: forwards bytes both ways untouched and keeps what
 * the client received, so a test can byte-compare the response bodies the client actually got
 * with what the upstream sent. Bodies are found by their content-length (the fake upstream sends
 * one when asked), so no HTTP parser is needed for the check.
 */
import { connect, createServer, type Server } from 'node:net';

export interface Tap {
  url: string;
  /** Response bodies the client received, in order, per connection then response. */
  bodies(): Buffer[];
  close(): Promise<void>;
}

function splitResponses(stream: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let at = 0;
  while (at < stream.length) {
    const end = stream.indexOf('\r\n\r\n', at);
    if (end < 0) break;
    const head = stream.subarray(at, end).toString('latin1');
    const m = /\r\ncontent-length:\s*(\d+)/i.exec(head);
    if (!m) break; // a chunked body: not something this tap measures
    const start = end + 4;
    out.push(stream.subarray(start, start + Number(m[1])));
    at = start + Number(m[1]);
  }
  return out;
}

export async function startTap(targetPort: number): Promise<Tap> {
  const received: Buffer[][] = [];
  const server: Server = createServer((client) => {
    const chunks: Buffer[] = [];
    received.push(chunks);
    const up = connect(targetPort, '127.0.0.1');
    client.pipe(up);
    up.on('data', (d: Buffer) => {
      chunks.push(d);
      client.write(d);
    });
    up.on('end', () => client.end());
    up.on('error', () => client.destroy());
    client.on('error', () => up.destroy());
    client.on('close', () => up.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    bodies: () => received.flatMap((c) => splitResponses(Buffer.concat(c))),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
