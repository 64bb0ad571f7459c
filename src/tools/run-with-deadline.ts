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

/** Everything needed to run one validated call. */
export interface DeadlineRun {
  readonly entry: { readonly tool: Tool; readonly spec: ToolSpec; readonly timeoutMs: number };
  readonly args: ToolArguments;
  readonly callId: string;
  readonly signal: AbortSignal | undefined;
  readonly bus: EventBus | undefined;
  readonly fail: (code: ToolErrorCode, content: string) => ToolResult;
}

/**
 * Runs a tool with its own abort signal and resolves by the deadline even when the tool ignores the signal
 * (its late result or error is then dropped). Cancellation by the caller resolves at once as `cancelled`.
 */
export async function runWithDeadline(run: DeadlineRun): Promise<ToolResult> {
  const { entry, signal, fail } = run;
  const name = entry.spec.name;
  if (signal?.aborted) return fail('cancelled', `Tool '${name}' was cancelled before it started.`);
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const interrupted = new Promise<ToolResult>((resolve) => {
    timer = setTimeout(() => {
      controller.abort(
        new Error(`Tool '${name}' timed out after ${formatSeconds(entry.timeoutMs)}`),
      );
      run.bus?.publish('tool_timeout', {
        toolName: name,
        callId: run.callId,
        timeoutMs: entry.timeoutMs,
      });
      resolve(
        fail('timed_out', `Tool '${name}' timed out after ${formatSeconds(entry.timeoutMs)}.`),
      );
    }, entry.timeoutMs);
    if (signal !== undefined) {
      onAbort = () => {
        controller.abort(signal.reason);
        resolve(fail('cancelled', `Tool '${name}' was cancelled.`));
      };
      signal.addEventListener('abort', onAbort, { once: true });
    }
  });
  const context: ToolContext = {
    signal: controller.signal,
    callId: run.callId,
    ...(run.bus ? { bus: run.bus } : {}),
  };
  try {
    return await Promise.race([invoke(entry.tool, name, run.args, context, fail), interrupted]);
  } finally {
    clearTimeout(timer);
    if (onAbort !== undefined) signal?.removeEventListener('abort', onAbort);
  }
}

async function invoke(
  tool: Tool,
  name: string,
  args: ToolArguments,
  context: ToolContext,
  fail: DeadlineRun['fail'],
): Promise<ToolResult> {
  try {
    return normalizeResult(name, await tool.execute(args, context));
  } catch (error) {
    return fail('execution_failed', `Tool execution error: ${describeError(error)}`);
  }
}

/** Makes whatever a tool returned into a well-formed result (tools written in plain JS may return anything). */
export function normalizeResult(toolName: string, value: unknown): ToolResult {
  if (typeof value === 'string') return toolSuccess(toolName, value);
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
