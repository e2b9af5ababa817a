/**
 * Error types the CLI turns into one-line messages and exit codes: UsageError and ConfigError exit 2,
 * NotFoundError exits 1. Anything else escaping to the top is a bug, reported in one line too.
 */
export class UsageError extends Error {
  readonly exitCode = 2;
}

/** A config or filter problem; `path` is dotted (components.collapse.head_lines). */
export class ConfigError extends Error {
  readonly exitCode = 2;
  constructor(
    readonly path: string,
    readonly reason: string,
    readonly file?: string,
  ) {
    super(`${file ? `${file}: ` : ''}${path ? `${path}: ` : ''}${reason}`);
  }
  /** The same error with a longer path prefix (the caller knows where the value sat). */
  under(prefix: string, file?: string): ConfigError {
    return new ConfigError(this.path ? `${prefix}.${this.path}` : prefix, this.reason, file ?? this.file);
  }
}

export class NotFoundError extends Error {
  readonly exitCode = 1;
}

/** An error that carries its exit code (usage and config errors: 2). */
export type CodedError = Error & { exitCode: number };

export function isCodedError(err: unknown): err is CodedError {
  return err instanceof Error && typeof (err as { exitCode?: unknown }).exitCode === 'number';
}
