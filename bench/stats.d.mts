/** Writes `events` ledger lines of the bench's mix to dir/ledger.jsonl, ending at `now`; its size in bytes. */
export function makeLedger(dir: string, events?: number, now?: number): number;
export function benchStats(opts?: { runs?: number; events?: number; bin?: string }): Record<string, number>;
