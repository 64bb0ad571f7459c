import { describe, expect, it } from 'vitest';
import { AgentError, type AgentResult, JarvisError } from '../core/index.js';
import { failureTurnEnd, toAgentError } from './run-failure.js';

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

  // Drift fixed: the text-protocol and code loops counted an engine's own cancellation as a cancelled run; the
  // orchestrator and simple agents called it an engine failure.
  it('makes an engine_cancelled failure agent_cancelled even when the run signal was not aborted', () => {
    const cause = new JarvisError({ code: 'engine_cancelled', message: 'request aborted' });
    const error = toAgentError({ agentId: 'a', error: cause, signal: undefined, partialResult });
    expect(error).toMatchObject({ code: 'agent_cancelled', name: 'AbortError', cause });
  });
});
