import type { Redactor } from '../core/index.js';
import { CliExit, codeOf, isAbort } from './cli-exit.js';
import { diagnosticText, jsonText, redactForOutput } from './cli-output.js';

export {
  CliExit,
  ExitCode,
  exitCodeOf,
  InterruptedError,
  isAbort,
  signalExitCode,
  UsageError,
} from './cli-exit.js';

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The message shown on stderr: `error: <what happened>` (no stack trace: messages say what to do), redacted
 * and with terminal escapes shown visibly (messages quote servers and models).
 */
export function formatError(error: unknown, redactor?: Redactor): string {
  if (error instanceof CliExit) return '';
  if (isAbort(error)) return 'Cancelled.\n';
  return `error: ${diagnosticText(messageOf(error), redactor)}\n`;
}

/** The `{"error": {"code", "message"}}` object `--json` prints on stdout for a failure (message redacted). */
export function errorJson(error: unknown, redactor?: Redactor): string {
  const code = isAbort(error) ? 'cancelled' : codeOf(error) || 'error';
  const message = isAbort(error) ? 'Cancelled.' : redactForOutput(messageOf(error), redactor);
  return jsonText({ error: { code, message } });
}
