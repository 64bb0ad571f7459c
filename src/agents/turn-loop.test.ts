import { describe, expect, it } from 'vitest';
import { AgentError, type AgentResult, type GenerateResult } from '../core/index.js';
import { stepCountIs } from './stop-conditions.js';
import { createTurnLoopState, engineTurn, runTurnLoop } from './turn-loop.js';

function newState(signal?: AbortSignal) {
  const ends: Readonly<Record<string, unknown>>[] = [];
  const state = createTurnLoopState({
    agentId: 'a',
    signal,
    messages: [],
    publishTurnEnd: (data) => ends.push(data),
  });
  return { state, ends };
}

const DONE: AgentResult = { content: 'done', toolResults: [], turns: 2, metadata: {} };
const LIMIT: AgentResult = { content: 'limit', toolResults: [], turns: 3, metadata: {} };

function reply(content: string): Promise<GenerateResult> {
  return Promise.resolve({
    content,
    toolCalls: [],
    usage: { promptTokens: 1, completionTokens: 2, totalTokens: 3 },
    finishReason: 'stop',
    model: 'm',
    ttftSeconds: 0,
  });
}

describe('runTurnLoop', () => {
  it('runs turns from 1 until a step returns the result', async () => {
    const { state } = newState();
    const seen: number[] = [];
    const result = await runTurnLoop(state, {
      stopWhen: [stepCountIs(5)],
      step: async (turn) => {
        seen.push(turn);
        return turn === 2 ? DONE : undefined;
      },
      outOfTurns: () => LIMIT,
    });
    expect(result).toBe(DONE);
    expect(seen).toEqual([1, 2]);
  });

  it('ends with outOfTurns when a stop condition holds, before any turn for 0', async () => {
    for (const [maxTurns, turns] of [
      [3, [1, 2, 3]],
      [0, []],
    ] as const) {
      const { state } = newState();
      const seen: number[] = [];
      const loop = {
        stopWhen: [stepCountIs(maxTurns)],
        step: async (turn: number) => {
          seen.push(turn);
          return undefined;
        },
        outOfTurns: () => LIMIT,
      };
      expect(await runTurnLoop(state, loop)).toBe(LIMIT);
      expect(seen).toEqual(turns);
    }
  });

  it('turns a failure into an AgentError with the partial result and publishes its end', async () => {
    const { state, ends } = newState();
    const failing = async (turn: number) => {
      await engineTurn(state, turn, () =>
        turn === 1 ? reply('x') : Promise.reject(new Error('503')),
      );
      return undefined;
    };
    const error = await runTurnLoop(state, {
      stopWhen: [stepCountIs(5)],
      step: failing,
      outOfTurns: () => LIMIT,
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AgentError);
    expect(error).toMatchObject({
      code: 'agent_engine_failed',
      partialResult: { turns: 1, content: '', metadata: { usage: { totalTokens: 3 } } },
    });
    expect(ends).toEqual([
      { turns: 1, error: (error as AgentError).message, errorCode: 'agent_engine_failed' },
    ]);
  });

  it('is cancelled before the next turn once the signal aborts', async () => {
    const controller = new AbortController();
    const { state } = newState(controller.signal);
    const seen: number[] = [];
    const error = await runTurnLoop(state, {
      stopWhen: [stepCountIs(5)],
      step: async (turn) => {
        seen.push(turn);
        controller.abort('stop');
        return undefined;
      },
      outOfTurns: () => LIMIT,
    }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'agent_cancelled', cause: 'stop' });
    expect(seen).toEqual([1]);
  });
});
