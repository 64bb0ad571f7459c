import {
  type AgentStreamEvent,
  type ToolCall,
  type ToolResult,
  toolFailure,
} from '../core/index.js';
import type { ExecuteOptions, ToolExecutor } from '../tools/index.js';
import type { LoopGuard } from './loop-guard.js';

/** Receives the progress events of a streaming run. */
export type EmitEvent = (event: AgentStreamEvent) => void;

/** What the calls of one turn are checked against. */
export interface TurnPlanContext {
  readonly guard: LoopGuard;
  /** Every call id used so far in the run; the ids of this turn are added. */
  readonly callIds: Set<string>;
  readonly maxToolCallsPerTurn: number;
  readonly turn: number;
}

/** The calls of one turn as they will be answered. */
export interface TurnPlan {
  /** The model's calls in the order issued, each with an id unique within the run. */
  readonly calls: readonly ToolCall[];
  /** Results decided without running the tool (over the per-turn limit, repeated), by call index. */
  readonly refusals: readonly (ToolResult | undefined)[] | undefined;
  /** The call that repeated once too often; the run stops instead of running the turn. */
  readonly loop: ToolCall | undefined;
}

/** How the calls of a turn are run. */
export interface ToolRunContext {
  readonly executor: ToolExecutor;
  /** Most calls in flight at once (1 runs them in order). */
  readonly concurrency: number;
  readonly signal: AbortSignal | undefined;
  /** `{ signal }` when there is one, else empty; built once per run. */
  readonly executeOptions: ExecuteOptions;
  readonly emit: EmitEvent | undefined;
  readonly turn: number;
}

/**
 * Gives every call a run-unique id, refuses the calls beyond the per-turn limit and the repeats the loop guard
 * refuses, and notices a call that repeats often enough to stop the run.
 */
export function planToolCalls(raw: readonly ToolCall[], context: TurnPlanContext): TurnPlan {
  const calls = uniqueCallIds(raw, context.callIds, context.turn);
  const { guard, maxToolCallsPerTurn } = context;
  let refusals: (ToolResult | undefined)[] | undefined;
  for (let index = 0; index < calls.length; index += 1) {
    const call = calls[index] as ToolCall;
    let refusal: ToolResult | undefined;
    if (index >= maxToolCallsPerTurn) {
      refusal = tooManyCalls(call, maxToolCallsPerTurn, calls.length);
    } else {
      const verdict = guard.observe(call);
      if (verdict === 'stop') return { calls, refusals, loop: call };
      if (verdict === 'refuse') refusal = repeatedCall(call, guard.repeats);
    }
    if (refusal !== undefined) {
      refusals ??= new Array<ToolResult | undefined>(calls.length);
      refusals[index] = refusal;
    }
  }
  return { calls, refusals, loop: undefined };
}

/**
 * Runs the planned calls, at most `concurrency` at a time, and returns their results in the order the model
 * issued them. Refused calls get their refusal; calls not started when the run is cancelled get a
 * `cancelled` result, so every call has a result.
 */
export async function executeToolCalls(
  plan: TurnPlan,
  context: ToolRunContext,
): Promise<ToolResult[]> {
  const { calls } = plan;
  const results = new Array<ToolResult>(calls.length);
  if (calls.length === 1) {
    results[0] = await runCall(plan, 0, context);
    return results;
  }
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < calls.length) {
      const index = next;
      next += 1;
      const outcome = runCall(plan, index, context);
      results[index] = outcome instanceof Promise ? await outcome : outcome;
    }
  };
  const workers = Math.min(context.concurrency, calls.length);
  if (workers === 1) await worker();
  else await Promise.all(Array.from({ length: workers }, worker));
  return results;
}

/** One call: its refusal, a cancellation, or the executor's result; reported to a streaming consumer. */
function runCall(
  plan: TurnPlan,
  index: number,
  context: ToolRunContext,
): ToolResult | Promise<ToolResult> {
  const call = plan.calls[index] as ToolCall;
  const { emit, turn } = context;
  emit?.({ type: 'tool_call_start', turn, toolCall: call });
  const decided =
    plan.refusals?.[index] ?? (context.signal?.aborted === true ? notStarted(call) : undefined);
  if (decided !== undefined) {
    emit?.({ type: 'tool_call_end', turn, toolCall: call, result: decided });
    return decided;
  }
  const pending = context.executor.execute(call, context.executeOptions);
  if (emit === undefined) return pending;
  return pending.then((result) => {
    emit({ type: 'tool_call_end', turn, toolCall: call, result });
    return result;
  });
}

/** The calls with empty or already used ids renamed; the same array when nothing needed renaming. */
function uniqueCallIds(
  raw: readonly ToolCall[],
  seen: Set<string>,
  turn: number,
): readonly ToolCall[] {
  let renamed: ToolCall[] | undefined;
  for (let index = 0; index < raw.length; index += 1) {
    const call = raw[index] as ToolCall;
    let id = typeof call.id === 'string' ? call.id : '';
    if (id === '' || seen.has(id)) {
      id = freshId(id === '' ? `call_${turn}_${index + 1}` : id, seen);
      renamed ??= raw.slice();
      renamed[index] = { id, name: call.name, arguments: call.arguments };
    }
    seen.add(id);
  }
  return renamed ?? raw;
}

function freshId(base: string, seen: ReadonlySet<string>): string {
  if (!seen.has(base)) return base;
  let suffix = 2;
  while (seen.has(`${base}_${suffix}`)) suffix += 1;
  return `${base}_${suffix}`;
}

function tooManyCalls(call: ToolCall, limit: number, issued: number): ToolResult {
  return toolFailure(
    call.name,
    'too_many_calls',
    `Tool call '${call.name}' was not run: at most ${limit} tool calls are executed per turn and this turn had ${issued}. Call fewer tools per turn.`,
  );
}

function repeatedCall(call: ToolCall, repeats: number): ToolResult {
  return toolFailure(
    call.name,
    'repeated_call',
    `Tool call '${call.name}' was not run: it is the same call with the same arguments ${repeats} times in a row. You are repeating yourself; change your approach (another tool or other arguments) or give your final answer.`,
  );
}

function notStarted(call: ToolCall): ToolResult {
  return toolFailure(
    call.name,
    'cancelled',
    `Tool '${call.name}' was cancelled before it started.`,
  );
}
