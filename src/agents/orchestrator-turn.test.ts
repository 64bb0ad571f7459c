import { describe, expect, it } from 'vitest';
import type { AgentStreamEvent, ToolCall } from '../core/index.js';
import { ScriptedTool } from '../testing/index.js';
import { ToolExecutor } from '../tools/index.js';
import { LoopGuard } from './loop-guard.js';
import { executeToolCalls, planToolCalls } from './orchestrator-turn.js';

const call = (id: string, name: string, args = '{}'): ToolCall => ({ id, name, arguments: args });

function context(maxToolCallsPerTurn = 20) {
  return { guard: new LoopGuard(), callIds: new Set<string>(), maxToolCallsPerTurn, turn: 1 };
}

describe('planToolCalls', () => {
  it('keeps the calls array as it is when every id is fresh and nothing is refused', () => {
    const calls = [call('a', 't', '{"n":1}'), call('b', 't', '{"n":2}')];
    const plan = planToolCalls(calls, context());
    expect(plan.calls).toBe(calls);
    expect(plan.refusals).toBeUndefined();
    expect(plan.loop).toBeUndefined();
  });

  it('does not let calls over the per-turn limit count towards the loop guard', () => {
    const same = call('', 't');
    const plan = planToolCalls([same, same, same, same, same], context(2));
    expect(plan.loop).toBeUndefined();
    expect(
      Array.from(plan.refusals ?? [], (result) =>
        result?.success === false ? result.errorCode : 'run',
      ),
    ).toEqual(['run', 'run', 'too_many_calls', 'too_many_calls', 'too_many_calls']);
    expect(plan.calls.map((c) => c.id)).toEqual([
      'call_1_1',
      'call_1_2',
      'call_1_3',
      'call_1_4',
      'call_1_5',
    ]);
  });

  it('reports the call that repeats into a loop', () => {
    const same = call('x', 't');
    const plan = planToolCalls([same, same, same, same], context());
    expect(plan.loop?.id).toBe('x_4');
  });
});

describe('executeToolCalls', () => {
  it('reports each call to a streaming consumer, refusals included', async () => {
    const executor = new ToolExecutor([new ScriptedTool({ name: 't', steps: ['ok'] })]);
    const plan = planToolCalls([call('a', 't'), call('b', 't')], context(1));
    const events: AgentStreamEvent[] = [];
    const results = await executeToolCalls(plan, {
      executor,
      concurrency: 8,
      signal: undefined,
      executeOptions: {},
      emit: (event) => events.push(event),
      turn: 1,
    });
    expect(results.map((r) => r.content)).toEqual(['ok', expect.stringContaining('was not run')]);
    expect(
      events.map((event) => `${event.type}:${'toolCall' in event ? event.toolCall.id : ''}`),
    ).toEqual(['tool_call_start:a', 'tool_call_start:b', 'tool_call_end:b', 'tool_call_end:a']);
  });
});
