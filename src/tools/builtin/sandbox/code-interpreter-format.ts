import { constants } from 'node:os';
import type { JsonValue, ToolErrorCode } from '../../../core/index.js';
import { capOutput } from '../../output-cap.js';
import type { SandboxName } from './sandbox-backend.js';
import type { ChildRunResult } from './sandbox-process.js';

/** Which limit stopped a run, if any. */
export type RunLimit = 'timeout' | 'memory' | 'cpu' | 'output' | null;

/** A run turned into what the model sees. */
export interface FormattedRun {
  readonly content: string;
  readonly success: boolean;
  readonly errorCode: ToolErrorCode;
  readonly metadata: Readonly<Record<string, JsonValue>>;
}

/** What the formatter needs besides the run itself. */
export interface FormatOptions {
  readonly sandbox: SandboxName;
  readonly seccomp: boolean;
  readonly timeoutSeconds: number;
  readonly maxOutputChars: number;
  readonly maxStreamBytes: number;
}

/** The signal number that ended the interpreter (bwrap reports it as exit status 128 + n). */
function signalNumber(run: ChildRunResult): number | undefined {
  if (run.exitSignal !== null)
    return constants.signals[run.exitSignal as keyof typeof constants.signals];
  if (run.exitCode !== null && run.exitCode > 128 && run.exitCode < 160) return run.exitCode - 128;
  return undefined;
}

/** Which limit, if any, ended the run. */
export function limitHit(run: ChildRunResult): RunLimit {
  if (run.stoppedBy === 'timeout') return 'timeout';
  if (run.stoppedBy === 'output_limit') return 'output';
  if (run.stoppedBy !== 'exit') return null;
  const signal = signalNumber(run);
  if (signal === constants.signals.SIGXCPU) return 'cpu';
  const outOfMemory =
    /\bMemoryError\b|JavaScript heap out of memory|Array buffer allocation failed/.test(run.stderr);
  if (outOfMemory || signal === constants.signals.SIGKILL) return 'memory';
  return null;
}

/** The first line of a failed run, saying which limit (if any) stopped it. */
function headline(
  run: ChildRunResult,
  limit: RunLimit,
  options: FormatOptions,
): string | undefined {
  if (run.stoppedBy === 'spawn_error')
    return `Sandbox could not start: ${run.spawnError ?? 'unknown error'}.`;
  if (run.stoppedBy === 'aborted') return 'Execution cancelled; the sandbox was killed.';
  if (limit === 'timeout')
    return `Execution timed out after ${options.timeoutSeconds} seconds (wall-clock limit); the sandbox was killed.`;
  if (limit === 'output')
    return `Output limit exceeded: more than ${options.maxStreamBytes} bytes on one stream; the sandbox was killed.`;
  if (limit === 'cpu') return 'CPU time limit exceeded; the sandbox was killed.';
  if (limit === 'memory')
    return options.sandbox === 'pyodide'
      ? 'Memory limit exceeded (512 MiB wasm memory, 256 MiB JavaScript heap).'
      : 'Memory limit exceeded (512 MiB address space).';
  return undefined;
}

/** stdout then stderr, as upstream joins them, or "(no output)". */
function joinStreams(run: ChildRunResult): string {
  let body = run.stdout;
  if (run.stderr !== '')
    body += `${body === '' || body.endsWith('\n') ? '' : '\n'}[stderr]\n${run.stderr}`;
  return body === '' ? '(no output)' : body;
}

/** Builds the content string (headline, capped output, exit status) and metadata of one run. */
export function formatRun(run: ChildRunResult, options: FormatOptions): FormattedRun {
  const limit = limitHit(run);
  const head = headline(run, limit, options);
  const capped = capOutput(joinStreams(run), options.maxOutputChars);
  const signal = signalNumber(run);
  const status =
    signal === undefined ? `exit status ${run.exitCode}` : `killed by signal ${signal}`;
  const warning =
    options.sandbox === 'unsandboxed'
      ? '[WARNING: this code ran WITHOUT a sandbox (allowUnsandboxed is set)]\n'
      : '';
  const parts = [warning + (head ?? ''), capped.content, `[${status}]`].filter(
    (part) => part !== '',
  );
  const success = run.stoppedBy === 'exit' && run.exitCode === 0;
  const errorCode: ToolErrorCode =
    run.stoppedBy === 'timeout'
      ? 'timed_out'
      : run.stoppedBy === 'aborted'
        ? 'cancelled'
        : 'tool_error';
  return {
    content: parts.join('\n'),
    success,
    errorCode,
    metadata: {
      sandbox: options.sandbox,
      seccomp: options.seccomp,
      returncode: run.exitCode,
      limit,
      truncated: capped.truncated,
      elapsedMs: Math.round(run.elapsedMs),
    },
  };
}
