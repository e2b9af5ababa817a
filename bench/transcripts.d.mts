// Types for bench/transcripts.mjs, so the golden tests share its replay loop.
export const CORPUS_TRANSCRIPTS: string;

export interface AnthropicBody {
  messages: { role: string; content: unknown }[];
  [key: string]: unknown;
}

export interface ReplayResult {
  turns: number;
  /** Consecutive turn pairs compared. */
  pairs: number;
  /** Pairs in which every message of the earlier output is unchanged in the later one. */
  stable: number;
  /** Turn indices whose output changed an earlier message. */
  unstable: number[];
  /** Tool-output tokens summed over every request, without and with cg. */
  toolIn: number;
  toolOut: number;
  /** The same for the last request alone. */
  lastIn: number;
  lastOut: number;
}

export function turnEnds(body: AnthropicBody): number[];
export function requestAt(body: AnthropicBody, end: number): string;
export function toolTexts(body: unknown): { id: string; text: string }[];
export function sessionFiles(): string[];
export function replaySession(
  body: AnthropicBody,
  options: {
    run: (request: string) => Promise<string>;
    count: (text: string) => Promise<number>;
    onTurn?: (k: number, request: string, output: string) => void | Promise<void>;
  },
): Promise<ReplayResult>;
export function main(): Promise<string[]>;
