/** Exit codes: 0 success, 1 runtime failure, 2 usage error, 130 interrupted. */
export const ExitCode = { ok: 0, failure: 1, usage: 2, interrupted: 130 } as const;

/**
 * A mistake in how the command was called (bad flag value, unknown name, empty query): exit code 2. A plain
 * Error with a `code`, like the library's errors, so that `--help` and the flag parsers load nothing else.
 */
export class UsageError extends Error {
  readonly code = 'usage';

  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** Ends the command with an exit code after it printed its own output (e.g. `doctor` with failed checks). */
export class CliExit extends Error {
  readonly exitCode: number;

  constructor(exitCode: number) {
    super(`exit ${exitCode}`);
    this.name = 'CliExit';
    this.exitCode = exitCode;
  }
}

/** JarvisError codes that mean the user asked for something that cannot be (exit 2, not 1). */
const USAGE_CODES = new Set([
  'usage',
  'unknown_tool',
  'unknown_agent',
  'unknown_engine',
  'invalid_argument',
  'config_invalid',
  'config_exists',
  'registry_missing_key',
]);

/** The exit code a failure ends the program with. */
export function exitCodeOf(error: unknown): number {
  if (error instanceof CliExit) return error.exitCode;
  if (isAbort(error)) return ExitCode.interrupted;
  if (USAGE_CODES.has(codeOf(error))) return ExitCode.usage;
  return ExitCode.failure;
}

/** The string `code` of an error (JarvisError and its kin), or '' when it has none. */
function codeOf(error: unknown): string {
  const code =
    typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : '';
  return typeof code === 'string' ? code : '';
}

/** True for a cancellation (Ctrl-C). */
export function isAbort(error: unknown): boolean {
  return error instanceof Error && (error.name === 'AbortError' || error.name === 'CancelledError');
}

/** The message shown on stderr: `error: <what happened>` (no stack trace: messages say what to do). */
export function formatError(error: unknown): string {
  if (error instanceof CliExit) return '';
  if (isAbort(error)) return 'Cancelled.\n';
  const message = error instanceof Error ? error.message : String(error);
  return `error: ${message}\n`;
}
