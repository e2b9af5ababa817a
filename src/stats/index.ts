/**
 * The stats API the rest of cg uses (see README "Savings"). Call sites await these after their
 * output is written; none of them throws.
 *
 *   recordCompaction(events, meta)  compress and `cg run`: one call per run
 *   recordExpand(record)            `cg expand`: one call per key served or missed
 *   recordExpands(records)          the same for many keys at once (one write)
 *   countRun(events, tokens)        exact counts for the footer (pass them on as meta.counts)
 *   footerLine(counts)              `cg: 12,345 → 1,234 tokens (−90%) · cg expand KEY`
 *   recordRequest(record)           `cg proxy`: one call per request forwarded (requests.ts)
 *
 * RecordMeta.host / .via (else CG_HOST / CG_VIA) say which agent host ran cg and through which door.
 */
export { countRun, footerLine, type RunCounts } from './footer.js';
export {
  type ExpandRecord,
  type RecordMeta,
  recordCompaction,
  recordExpand,
  recordExpands,
} from './record.js';
export { type RequestRecord, recordRequest } from './requests.js';
