/**
 * The pipeline's events: one per decision (a rewrite, a skip and its gate, a revert, a failure),
 * for --verbose, --explain and the stats ledger; and base(), the one way they are built.
 */
import type { Loss } from '../component.js';
import type { ToolOutput } from '../input/transcript.js';

export type EventAction = 'rewrite' | 'skip' | 'revert' | 'fail';

export interface PipelineEvent {
  component: string;
  /** Output id, or '*' for a decision about the whole component. */
  output: string;
  action: EventAction;
  /** Why it was skipped, reverted or failed. */
  reason?: string;
  note?: string;
  loss?: Loss;
  bytesIn: number;
  bytesOut: number;
  key?: string;
  ms: number;
  command?: string;
  toolName?: string;
  /** For rewrites: the text the component got and the text kept (references, not copies). */
  before?: string;
  after?: string;
}

export function base(
  component: string,
  output: string,
  action: EventAction,
  bytesIn: number,
  bytesOut: number,
  reason?: string,
  o?: ToolOutput,
): PipelineEvent {
  return {
    component,
    output,
    action,
    ...(reason ? { reason } : {}),
    bytesIn,
    bytesOut,
    ms: 0,
    ...(o?.command ? { command: o.command } : {}),
    ...(o?.toolName ? { toolName: o.toolName } : {}),
  };
}
