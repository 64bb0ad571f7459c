import { describe, expect, it } from 'vitest';
import { AgentError, type AgentResult } from '../core/index.js';
import { abortReason, failureTurnEnd, toAgentError, untilAborted } from './orchestrator-failure.js';

const partialResult: AgentResult = { content: '', toolResults: [], turns: 2, metadata: {} };

describe('toAgentError', () => {
  it('makes an engine failure agent_engine_failed with the error as cause', () => {
    const cause = new Error('503');
    const error = toAgentError({ agentId: 'a', error: cause, signal: undefined, partialResult });
    expect(error).toMatchObject({
      code: 'agent_engine_failed',
      agentId: 'a',
      cause,
      partialResult,
    });
    expect(error.message).toBe("Agent 'a' stopped: the engine call of turn 3 failed: 503");
    expect(failureTurnEnd(error)).toEqual({
      turns: 2,
      error: error.message,
      errorCode: 'agent_engine_failed',
    });
  });

  it('makes any failure of an aborted run agent_cancelled with the abort reason as cause', () => {
    const signal = AbortSignal.abort('stop');
    const error = toAgentError({ agentId: 'a', error: new Error('x'), signal, partialResult });
    expect(error).toMatchObject({ code: 'agent_cancelled', name: 'AbortError', cause: 'stop' });
    expect(error.message).toBe("Agent 'a' was cancelled after 2 turns.");
  });

  it('passes an AgentError through', () => {
    const original = new AgentError({
      code: 'agent_runtime_failed',
      agentId: 'a',
      message: 'm',
      partialResult,
    });
    expect(toAgentError({ agentId: 'b', error: original, signal: undefined, partialResult })).toBe(
      original,
    );
  });
});

describe('untilAborted', () => {
  it('settles with the promise when no abort comes', async () => {
    const controller = new AbortController();
    await expect(untilAborted(Promise.resolve(1), controller.signal)).resolves.toBe(1);
    await expect(untilAborted(Promise.reject(new Error('no')), controller.signal)).rejects.toThrow(
      'no',
    );
    await expect(untilAborted(Promise.resolve(2), undefined)).resolves.toBe(2);
  });

  it('rejects with the abort reason as soon as the signal aborts', async () => {
    const controller = new AbortController();
    const pending = untilAborted(new Promise(() => {}), controller.signal);
    controller.abort('why');
    await expect(pending).rejects.toBe('why');
    await expect(
      untilAborted(Promise.reject(new Error('late')), AbortSignal.abort('now')),
    ).rejects.toBe('now');
  });

  it('gives a reasonless abort an AbortError', () => {
    const signal = { reason: undefined } as unknown as AbortSignal;
    expect(abortReason(signal)).toMatchObject({ name: 'AbortError' });
  });
});
