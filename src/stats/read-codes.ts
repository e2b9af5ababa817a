/**
 * The ledger scanner's tables (read.ts): kinds and actions as small numbers, every key of the
 * format as a dense code told apart by length and first two characters (a jump table, not string
 * compares), and the ASCII words the scanner compares bytes with. Data, not logic.
 */
export const KIND_RUN = 1;
export const KIND_OUT = 2;
export const KIND_EV = 3;
export const KIND_EXPAND = 4;
export const KIND_REQ = 5;

export const ACTION_REWRITE = 1;
export const ACTION_SKIP = 2;
export const ACTION_REVERT = 3;
export const ACTION_FAIL = 4;

// Keys are told apart by a table indexed by length and first two characters, so the scanner's
// switch runs on small dense codes (a jump table) instead of comparing strings or sparse numbers.
const KEY_NAMES = [
  't',
  'e',
  'r',
  's',
  'c',
  'a',
  'b',
  'd',
  'i',
  'n',
  'cmd',
  'tool',
  'why',
  'tk',
  'bi',
  'bo',
  'ti',
  'to',
  'tr',
  'rw',
  'ub',
  'hit',
  'est',
  'h',
  'via',
  'f',
  'k',
  'hi',
  'ho',
  'hr',
  'nf',
  'ro',
  'cs',
  'mi',
  'mo',
  'mc',
  'mr',
  'mw',
  'me',
] as const;
export const KEY_CODE = new Uint8Array(5 << 14);
KEY_NAMES.forEach((k, i) => {
  KEY_CODE[(k.length << 14) | (k.charCodeAt(0) << 7) | (k.length > 1 ? k.charCodeAt(1) : 0)] = i + 1;
});
export const K_T = 1;
export const K_E = 2;
export const K_R = 3;
export const K_S = 4;
export const K_C = 5;
export const K_A = 6;
export const K_B = 7;
export const K_D = 8;
export const K_I = 9;
export const K_N = 10;
export const K_CMD = 11;
export const K_TOOL = 12;
export const K_WHY = 13;
export const K_TK = 14;
export const K_BI = 15;
export const K_BO = 16;
export const K_TI = 17;
export const K_TO = 18;
export const K_TR = 19;
export const K_RW = 20;
export const K_UB = 21;
export const K_HIT = 22;
export const K_EST = 23;
export const K_H = 24;
export const K_VIA = 25;
export const K_F = 26;
export const K_K = 27;
export const K_HI = 28;
export const K_HO = 29;
export const K_HR = 30;
export const K_NF = 31;
export const K_RO = 32;
export const K_CS = 33;
export const K_MI = 34;
export const K_MO = 35;
export const K_MC = 36;
export const K_MR = 37;
export const K_MW = 38;
export const K_ME = 39;

export const KEEP = 0;
export const SKIP = 1;
export const BAD = 2;
const ascii = (s: string) => Uint8Array.from(s, (c) => c.charCodeAt(0));
export const PREFIX = ascii('{"v":1,"t":');
/** How every line of this format starts: a torn line followed by a whole one holds it twice. */
export const LINE_START = Buffer.from('{"v":');
export const [TRUE, FALSE, NULL] = [ascii('true'), ascii('false'), ascii('null')];
export const [RUN, REQ, OUT] = [ascii('run'), ascii('req'), ascii('out')];
export const [REWRITE, SKIP_, REVERT, FAIL] = [
  ascii('rewrite'),
  ascii('skip'),
  ascii('revert'),
  ascii('fail'),
];

/** run | out | ev | x | req, told apart by their first characters. */
export function kindAt(buf: Buffer, open: number, close: number): number {
  const len = close - open - 1;
  const c = buf[open + 1];
  if (len === 3 && c === 114 && bytesAt(buf, open + 1, RUN)) return KIND_RUN;
  if (len === 3 && c === 114 && bytesAt(buf, open + 1, REQ)) return KIND_REQ;
  if (len === 3 && c === 111 && bytesAt(buf, open + 1, OUT)) return KIND_OUT;
  if (len === 2 && c === 101 && buf[open + 2] === 118) return KIND_EV;
  if (len === 1 && c === 120) return KIND_EXPAND;
  return 0;
}

export function actionAt(buf: Buffer, open: number, close: number): number {
  const len = close - open - 1;
  if (len === 7 && bytesAt(buf, open + 1, REWRITE)) return ACTION_REWRITE;
  if (len === 4 && bytesAt(buf, open + 1, SKIP_)) return ACTION_SKIP;
  if (len === 6 && bytesAt(buf, open + 1, REVERT)) return ACTION_REVERT;
  if (len === 4 && bytesAt(buf, open + 1, FAIL)) return ACTION_FAIL;
  return 0;
}

/** Whether buf holds the ASCII bytes of `word` at `at`. */
export function bytesAt(buf: Buffer, at: number, word: Uint8Array): boolean {
  if (at + word.length > buf.length) return false;
  for (let i = 0; i < word.length; i++) if (buf[at + i] !== word[i]) return false;
  return true;
}
