export function isSignal(line: string): boolean;
export function templateKey(line: string): string;
export function visibility(output: string): (line: string) => boolean;
export function signalTemplates(input: string, output: string): { total: number; shown: number };
