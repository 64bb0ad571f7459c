import type { AgentErrorCode } from './agent.js';
import type { JsonValue } from './json.js';
import type { ToolErrorCode, ToolResult } from './tool-result.js';
import type { TokenUsage } from './usage.js';

// Payloads are type aliases (not interfaces) so that a subscriber may still read any of them as a plain
// `Readonly<Record<string, unknown>>`.

/** Payload of `inference_start`: an agent is about to call its engine (published by the agent only). */
export type InferenceStartPayload = {
  /** The model asked for, as the engine knows it. */
  readonly model: string;
  /** Registry key of the engine (`ollama`, `vllm`, `scripted`, …). */
  readonly engine: string;
  /** The agent turn this call belongs to (1-based). */
  readonly turn: number;
};

/** Payload of `inference_end`: the model call of an `inference_start` ended, successfully or not. */
export type InferenceEndPayload = InferenceStartPayload & {
  readonly success: boolean;
  /** Seconds from `inference_start` until the call ended or failed. */
  readonly latencySeconds: number;
  /** Token counts the engine reported (zero for failed calls). */
  readonly usage: TokenUsage;
  /** Seconds until the first token, as the engine reported it (0 for failed calls). */
  readonly ttftSeconds: number;
  /** What went wrong (secret shapes redacted), for failed calls. */
  readonly error?: string;
};

/** One measured model call, as published in `telemetry_record` events and stored by `TelemetryStore`. */
export type TelemetryRecord = {
  /** When the call started, in milliseconds since the Unix epoch. */
  readonly timestampMs: number;
  /** The model that was asked for. */
  readonly model: string;
  /** Registry key of the engine that served the call (`ollama`, `vllm`, …). */
  readonly engine: string;
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly totalTokens: number;
  /** Seconds from the start of the call until it ended, failed or was abandoned. */
  readonly latencySeconds: number;
  /** Seconds until the first token arrived (0 when none did). */
  readonly ttftSeconds: number;
  /** Completion tokens per second of decoding (`latency - ttft`); 0 when that time is not measurable. */
  readonly throughputTokensPerSecond: number;
  /** Price of the call from the pricing table; 0 when the model has no price. */
  readonly costUsd: number;
  readonly success: boolean;
  /** What went wrong, for failed calls. */
  readonly error?: string;
  /** Why the model stopped (`stop`, `length`, `tool_calls`, …), when the call finished and said so. */
  readonly finishReason?: string;
};

/** Payload of `telemetry_record`: the measurement of one model call (published by `InstrumentedEngine`). */
export type TelemetryRecordPayload = {
  readonly record: TelemetryRecord;
};

/** The tool call a `tool_*` event is about. */
type ToolCallRef = {
  readonly toolName: string;
  /** The model's id for the call (`call_1`), the same on every event of the call. */
  readonly callId: string;
};

/** Payload of `tool_call_start`. */
export type ToolCallStartPayload = ToolCallRef & {
  /** The parsed arguments object, or the raw text when it could not be parsed. */
  readonly arguments: JsonValue;
};

/** Payload of `tool_call_end`. */
export type ToolCallEndPayload = ToolCallRef & {
  readonly success: boolean;
  readonly latencySeconds: number;
  readonly errorCode?: ToolErrorCode;
  readonly result: ToolResult;
};

/** Payload of `tool_timeout`: the call ran out of time (its `tool_call_end` follows). */
export type ToolTimeoutPayload = ToolCallRef & {
  readonly timeoutMs: number;
};

/** Payload of `agent_turn_start`: an agent run began. */
export type AgentTurnStartPayload = {
  /** Registry key of the agent (`simple`, `orchestrator`, …). */
  readonly agent: string;
  readonly input: string;
  /** The caller's id for the run (`AgentRunOptions.runId`), when it gave one. */
  readonly runId?: string;
};

/** Payload of `agent_turn_end`: an agent run ended; the optional fields say how. */
export type AgentTurnEndPayload = {
  readonly agent: string;
  /** Model turns the run took (every built-in agent sets it). */
  readonly turns?: number;
  /** Length of the final answer, for runs that answered. */
  readonly contentLength?: number;
  readonly maxTurnsExceeded?: boolean;
  readonly loopDetected?: boolean;
  /** What went wrong, for failed runs. */
  readonly error?: string;
  /** The `AgentError` code, for failed runs. */
  readonly errorCode?: AgentErrorCode;
};

/** Payload of `loop_guard_triggered`: a run stopped because the model repeated the same tool call. */
export type LoopGuardTriggeredPayload = {
  readonly agent: string;
  readonly toolName: string;
  readonly callId: string;
  /** Identical calls in a row. */
  readonly repeats: number;
  readonly turn: number;
};

/** Payload of `memory_store`: one document was stored. */
export type MemoryStorePayload = {
  /** Registry key of the memory backend (`sqlite`). */
  readonly backend: string;
  readonly docId: string;
  readonly source: string;
};

/** Payload of `memory_retrieve`: a backend search, or the context injected into a prompt from one. */
export type MemoryRetrievePayload =
  | {
      readonly backend: string;
      readonly query: string;
      readonly numResults: number;
    }
  | {
      readonly contextInjection: true;
      readonly query: string;
      /** Results that made it into the context message. */
      readonly numResults: number;
      /** Estimated tokens of the context message. */
      readonly totalTokens: number;
    };

/** Payload of `scheduler_task_start` (snake_case, as the original publishes it). */
export type SchedulerTaskStartPayload = {
  readonly task_id: string;
  readonly prompt: string;
  /** ISO 8601 instant of the occurrence. */
  readonly scheduled_for: string;
  readonly attempt: number;
  /** Names this occurrence of the task (`<task_id>@<scheduled epoch ms>`), the same on its end event. */
  readonly occurrence_key: string;
};

/** Payload of `scheduler_task_end` (snake_case, as the original publishes it). */
export type SchedulerTaskEndPayload = {
  readonly task_id: string;
  readonly success: boolean;
  /** The answer, for successful runs (else empty). */
  readonly result: string;
  /** What went wrong, for failed runs (else empty). */
  readonly error: string;
  readonly scheduled_for: string;
  readonly attempt: number;
  /** The same key as the run's `scheduler_task_start` (`<task_id>@<scheduled epoch ms>`). */
  readonly occurrence_key: string;
  /** False when another scheduler process took the run over, so this outcome was not stored. */
  readonly recorded: boolean;
};

/** The payload of every event type this package publishes, keyed by the event's wire name. */
export type PublishedEventPayloads = {
  readonly inference_start: InferenceStartPayload;
  readonly inference_end: InferenceEndPayload;
  readonly telemetry_record: TelemetryRecordPayload;
  readonly tool_call_start: ToolCallStartPayload;
  readonly tool_call_end: ToolCallEndPayload;
  readonly tool_timeout: ToolTimeoutPayload;
  readonly agent_turn_start: AgentTurnStartPayload;
  readonly agent_turn_end: AgentTurnEndPayload;
  readonly loop_guard_triggered: LoopGuardTriggeredPayload;
  readonly memory_store: MemoryStorePayload;
  readonly memory_retrieve: MemoryRetrievePayload;
  readonly scheduler_task_start: SchedulerTaskStartPayload;
  readonly scheduler_task_end: SchedulerTaskEndPayload;
};
