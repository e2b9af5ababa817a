import { describe, expect, it } from 'vitest';
import { templateOf } from '../../../src/text/template.js';
import { mineTemplates } from '../../../src/text/templates.js';

// Lines of a real pino log (bench's unseen set: pino-service-log.txt) and PostgreSQL's jsonlog.
const done = (id: number, url: string, status: number) =>
  `{"level":30,"time":17961878046${id},"svc":"orders","reqId":${id * 7919},"method":"GET","url":"${url}","status":${status},"msg":"request completed"}`;

describe('templateOf on JSON-lines logs', () => {
  it('keeps keys and message words, and makes numbers and digit-bearing values slots', () => {
    const t = templateOf(done(12, '/orders/12', 200));
    expect(t.key).toBe(
      '{"level":<*>,"time":<*>,"svc":"orders","reqId":<*>,"method":"GET","url":"<*>","status":<*>,"msg":"request completed"}',
    );
    expect(t.values).toEqual(['30', '1796187804612', '95028', '/orders/12', '200']);
  });

  it('gives two messages two templates, never one template for every line of the same fields', () => {
    const a = templateOf(
      '{"error_severity":"ERROR","message":"relation \\"missing_table\\" does not exist"}',
    );
    const b = templateOf('{"error_severity":"LOG","message":"connection received: host=[local]"}');
    expect(a.key).not.toBe(b.key);
    const mined = mineTemplates(
      [done(1, '/orders/1', 200), done(2, '/orders/2', 404), '{"level":50,"msg":"payment failed"}'],
      { maxTemplates: 100, trackValues: 64 },
    );
    expect(mined.groups.map((g) => g.count)).toEqual([2, 1]);
  });
});
