/**
 * What a compaction did, and what is done with that after the output is written: a footer line
 * with the tokens saved when a person watches (stderr a terminal), and one run in the stats
 * ledger. Shared by the default command and `cg run`.
 */
import type { InputFormat } from '../component.js';
import type { CodedError } from '../errors.js';
import type { PipelineEvent } from '../pipeline/run.js';
import type { RunCounts } from '../stats/index.js';
import { isTerminal } from '../terminal.js';
import type { TokenizerName, Tokens } from '../tokens.js';
import type { CompressFlags } from './compress.js';

/** What a compaction did, for callers that report on it (cg run's footer). */
export interface CompactReport {
  events: PipelineEvent[];
  input: string;
  output: string;
  changed: boolean;
  /**
   * A config, filter or usage problem found while compacting (a filter file that fails to load, a
   * forced format the input does not have): the output is the input, and the caller reports this.
   */
  error?: CodedError;
  format: InputFormat;
  tokenizer: TokenizerName;
  storeDir?: string;
  /** The run's token counter: the footer reuses its cached counts. */
  tokens: Tokens;
  /** The session the engine replayed under (explicit or derived from the conversation). */
  session?: string;
}

/**
 * On a terminal (stderr is a TTY: a person is watching, never an agent's pipe), one footer line with
 * the tokens the run saved; the counts are handed on to the ledger so nothing is counted twice.
 */
export async function terminalFooter(report: CompactReport): Promise<RunCounts | undefined> {
  // Not process.stderr.isTTY: that getter builds the stderr stream, which a run never needs when
  // it has nothing to say there.
  if (!isTerminal(2) || !report.changed || report.error) return undefined;
  const { countRun, footerLine } = await import('../stats/index.js');
  const counts = await countRun(report.events, report.tokens);
  if (counts) process.stderr.write(`${footerLine(counts)}\n`);
  return counts;
}

/** Appends the run to the stats ledger (after the output is written; never throws). */
export async function recordReport(
  report: CompactReport,
  flags: CompressFlags,
  counts?: RunCounts,
): Promise<void> {
  if (report.error) return; // the output was the raw input: nothing was saved or spent
  const { recordCompaction } = await import('../stats/index.js');
  await recordCompaction(report.events, {
    ...(flags.command !== undefined ? { command: flags.command } : {}),
    ...(report.session !== undefined
      ? { session: report.session }
      : typeof flags.session === 'string'
        ? { session: flags.session }
        : {}),
    format: report.format,
    tokenizer: report.tokenizer,
    ...(report.storeDir !== undefined ? { storeDir: report.storeDir } : {}),
    ...(counts ? { counts } : {}),
  });
}
