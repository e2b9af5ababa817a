/**
 * Shell-quotes an argv for display and for filter selection (`$ pytest -k 'a b'`), so the
 * command a filter sees reads the way the agent would have typed it.
 */
const SAFE = /^[A-Za-z0-9_@%+=:,./-]+$/;

export function shellQuote(arg: string): string {
  if (arg === '') return "''";
  if (SAFE.test(arg)) return arg;
  return `'${arg.replaceAll("'", `'\\''`)}'`;
}

export function commandLine(argv: readonly string[]): string {
  return argv.map(shellQuote).join(' ');
}
