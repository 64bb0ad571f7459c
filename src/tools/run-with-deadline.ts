import {
  describeError,
  type EventBus,
  isPlainObject,
  type Tool,
  type ToolArguments,
  type ToolContext,
  type ToolErrorCode,
  type ToolResult,
  type ToolSpec,
  toolFailure,
  toolSuccess,
} from '../core/index.js';
import type { DeadlineQueue } from './deadline-queue.js';

/** Everything needed to run one validated call. */
export interface DeadlineRun {
  readonly entry: { readonly tool: Tool; readonly spec: ToolSpec; readonly timeoutMs: number };
  readonly deadlines: DeadlineQueue;
  readonly args: ToolArguments;
  readonly callId: string;
  /** When the call started, on the deadline queue's clock; the deadline counts from here. */
  readonly startedMs: number;
  readonly signal: AbortSignal | undefined;
  readonly bus: EventBus | undefined;
  /** Names of every tool of the run (handed to the tool in its context). */
  readonly runToolNames?: readonly string[];
  readonly fail: (code: ToolErrorCode, content: string) => ToolResult;
}

/**
 * Runs a tool with its own abort signal and resolves by the deadline even when the tool ignores the signal
 * (its late result or error is then dropped). Cancellation by the caller resolves at once as `cancelled`.
 */
export function runWithDeadline(run: DeadlineRun): Promise<ToolResult> {
  const { entry, signal, fail } = run;
  const name = entry.spec.name;
  if (signal?.aborted)
    return Promise.resolve(fail('cancelled', `Tool '${name}' was cancelled before it started.`));
  // One promise settled by whichever comes first: the tool, the deadline, or the caller's abort. Built by hand
  // rather than with Promise.race because this is the hot path of every tool call.
  return new Promise<ToolResult>((resolve) => {
    const abort = new LazyAbortController();
    let settled = false;
    const settle = (result: ToolResult): void => {
      if (settled) return;
      settled = true;
      run.deadlines.remove(deadline);
      if (signal !== undefined) signal.removeEventListener('abort', onCallerAbort);
      resolve(result);
    };
    const deadline = run.deadlines.add(run.startedMs + entry.timeoutMs, () => {
      abort.abort(new Error(`Tool '${name}' timed out after ${formatSeconds(entry.timeoutMs)}`));
      run.bus?.publish('tool_timeout', {
        toolName: name,
        callId: run.callId,
        timeoutMs: entry.timeoutMs,
      });
      settle(
        fail('timed_out', `Tool '${name}' timed out after ${formatSeconds(entry.timeoutMs)}.`),
      );
    });
    const onCallerAbort = (): void => {
      abort.abort(signal?.reason);
      settle(fail('cancelled', `Tool '${name}' was cancelled.`));
    };
    if (signal !== undefined) signal.addEventListener('abort', onCallerAbort, { once: true });
    const context = new CallContext(abort, run.callId, run.bus, run.runToolNames);
    void invoke(entry.tool, name, run.args, context, fail).then(settle);
  });
}

/** The context a tool receives; a class (not a literal with a getter) because it is built on every call. */
class CallContext implements ToolContext {
  readonly #abort: LazyAbortController;
  readonly callId: string;
  readonly bus?: EventBus;
  readonly runToolNames?: readonly string[];

  constructor(
    abort: LazyAbortController,
    callId: string,
    bus: EventBus | undefined,
    runToolNames: readonly string[] | undefined,
  ) {
    this.#abort = abort;
    this.callId = callId;
    if (bus !== undefined) this.bus = bus;
    if (runToolNames !== undefined) this.runToolNames = runToolNames;
  }

  get signal(): AbortSignal {
    return this.#abort.signal;
  }
}

/**
 * An AbortController made only when a tool asks for its signal: most tools never look at it, and creating
 * one is the single most expensive step of a fast call.
 */
class LazyAbortController {
  #controller: AbortController | undefined;
  #aborted = false;
  #reason: unknown;

  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  abort(reason: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    this.#controller?.abort(reason);
  }
}

/** Calls the tool; the returned promise never rejects (a throw becomes an `execution_failed` result). */
function invoke(
  tool: Tool,
  name: string,
  args: ToolArguments,
  context: ToolContext,
  fail: DeadlineRun['fail'],
): Promise<ToolResult> {
  const onError = (error: unknown): ToolResult =>
    fail('execution_failed', `Tool execution error: ${describeError(error)}`);
  try {
    return Promise.resolve(tool.execute(args, context)).then(
      (value) => normalizeResult(name, value),
      onError,
    );
  } catch (error) {
    return Promise.resolve(onError(error));
  }
}

/** Makes whatever a tool returned into a well-formed result (tools written in plain JS may return anything). */
export function normalizeResult(toolName: string, value: unknown): ToolResult {
  if (typeof value === 'string') return toolSuccess(toolName, value);
  if (isWellFormedResult(value)) return value;
  if (!isPlainObject(value) && (typeof value !== 'object' || value === null)) {
    return toolSuccess(toolName, value === undefined ? '' : String(value));
  }
  const raw = value as Partial<ToolResult> & { errorCode?: ToolErrorCode };
  const content = typeof raw.content === 'string' ? raw.content : stringify(raw.content);
  const extra = {
    usage: isPlainObject(raw.usage) ? raw.usage : {},
    costUsd: typeof raw.costUsd === 'number' ? raw.costUsd : 0,
    latencySeconds: 0,
    metadata: isPlainObject(raw.metadata) ? raw.metadata : {},
  };
  return raw.success === false
    ? toolFailure(toolName, raw.errorCode ?? 'tool_error', content, extra)
    : toolSuccess(toolName, content, extra);
}

/** True for a result that needs no repair (what `BaseTool` and `defineTool` tools return). */
function isWellFormedResult(value: unknown): value is ToolResult {
  if (typeof value !== 'object' || value === null) return false;
  const result = value as Partial<ToolResult> & { errorCode?: unknown };
  return (
    typeof result.content === 'string' &&
    typeof result.costUsd === 'number' &&
    typeof result.usage === 'object' &&
    result.usage !== null &&
    typeof result.metadata === 'object' &&
    result.metadata !== null &&
    (result.success === true || (result.success === false && typeof result.errorCode === 'string'))
  );
}

function stringify(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'object') {
    try {
      return JSON.stringify(value);
    } catch {
      return String(value);
    }
  }
  return String(value);
}

function formatSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))}s`;
}
