/**
 * Exit codes: 0 success, 1 runtime failure, 2 usage error, 3 stopped before a final answer (turn limit or loop
 * guard), 130 interrupted by SIGINT (Ctrl-C), 143 terminated by SIGTERM.
 */
export const ExitCode = {
  ok: 0,
  failure: 1,
  usage: 2,
  stopped: 3,
  interrupted: 130,
  terminated: 143,
} as const;

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

/** The reason the CLI's signal is aborted with when SIGINT or SIGTERM arrives; its exit code is 128 + signal. */
export class InterruptedError extends Error {
  readonly signalName: string;
  readonly exitCode: number;

  constructor(signalName: string) {
    super(`Interrupted (${signalName})`);
    this.name = 'AbortError';
    this.signalName = signalName;
    this.exitCode = signalExitCode(signalName);
  }
}

/** 128 + the signal's number, as shells report a program ended by it: SIGINT 130, SIGTERM 143. */
export function signalExitCode(signalName: string): number {
  return signalName === 'SIGTERM' ? ExitCode.terminated : ExitCode.interrupted;
}

/** JarvisError codes that mean the user asked for something that cannot be (exit 2, not 1). */
const USAGE_CODES = new Set([
  'usage',
  'unknown_tool',
  'unknown_agent',
  'unknown_engine',
  'invalid_argument',
  'config_invalid',
  'config_missing',
  'config_not_found',
  'config_unreadable',
  'config_exists',
  'registry_missing_key',
]);

/**
 * The exit code a failure ends the program with. A cancellation exits with the code of the signal that
 * caused it (`signal`'s reason: 143 for SIGTERM), else 130.
 */
export function exitCodeOf(error: unknown, signal?: AbortSignal): number {
  if (error instanceof CliExit) return error.exitCode;
  if (isAbort(error)) {
    const reason: unknown = signal?.aborted === true ? signal.reason : error;
    return reason instanceof InterruptedError ? reason.exitCode : ExitCode.interrupted;
  }
  if (USAGE_CODES.has(codeOf(error))) return ExitCode.usage;
  return ExitCode.failure;
}

/** The string `code` of an error (JarvisError and its kin), or '' when it has none. */
export function codeOf(error: unknown): string {
  const code =
    typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : '';
  return typeof code === 'string' ? code : '';
}

/** True for a cancellation (Ctrl-C). */
export function isAbort(error: unknown): boolean {
  return error instanceof Error && (error.name === 'AbortError' || error.name === 'CancelledError');
}
