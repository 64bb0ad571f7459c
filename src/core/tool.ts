import type { EventBus } from './events.js';
import type { ToolResult } from './tool-result.js';
import type { ToolSpec } from './tool-spec.js';

/** What a tool receives besides its arguments. */
export interface ToolContext {
  /** Aborted when the call times out or the caller cancels; long-running tools should stop. */
  readonly signal: AbortSignal;
  /** The id of the model's tool call, when the call came from a model. */
  readonly callId?: string;
  /** The bus the call is reported on, for tools that publish their own events. */
  readonly bus?: EventBus;
  /**
   * Names of every tool of the run this call belongs to (the executor's tools), for tools that must not grant
   * more than the run has (the scheduler's `schedule_task`).
   */
  readonly runToolNames?: readonly string[];
}

/** Arguments as a tool receives them: a plain object, validated against the spec by the executor. */
export type ToolArguments = Readonly<Record<string, unknown>>;

/** The contract every tool implements; `BaseTool` and `defineTool` are helpers that implement it. */
export interface Tool {
  /** Registry key of the tool; equal to `spec.name`. */
  readonly toolId: string;
  readonly spec: ToolSpec;
  /** Runs the tool; failures the model should see come back as `success: false` results. */
  execute(params: ToolArguments, context?: ToolContext): Promise<ToolResult>;
}

/** True when a value has the shape of a `Tool`. */
export function isTool(value: unknown): value is Tool {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Partial<Tool>;
  return (
    typeof candidate.toolId === 'string' &&
    typeof candidate.execute === 'function' &&
    typeof candidate.spec === 'object' &&
    candidate.spec !== null
  );
}
