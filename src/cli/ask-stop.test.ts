import { describe, expect, it } from 'vitest';
import type { AgentResult } from '../core/index.js';
import { answerTextOf, stopMessage, stopReasonOf } from './ask-stop.js';

function result(content: string, metadata: Record<string, unknown>): AgentResult {
  return { content, toolResults: [], turns: 3, metadata };
}

describe('stopped runs', () => {
  it('take their reason from the metadata', () => {
    expect(stopReasonOf({ usage: {} })).toBeUndefined();
    expect(stopReasonOf({ max_turns_exceeded: true })).toBe('max_turns');
    expect(stopReasonOf({ loop_detected: true })).toBe('loop_detected');
  });

  it("print the model's words on stdout, never the agent's stand-in notice", () => {
    const maxTurns = { max_turns_exceeded: true };
    const loop = { loop_detected: true };
    expect(answerTextOf(result('Maximum turns reached without a final answer.', maxTurns))).toBe(
      '',
    );
    const notice =
      "Stopped: the model called the tool 'calculator' with the same arguments 4 times in a row without reaching an answer.";
    expect(answerTextOf(result(notice, loop))).toBe('');
    expect(answerTextOf(result('Still checking the docs.', maxTurns))).toBe(
      'Still checking the docs.',
    );
    expect(answerTextOf(result('Maximum turns reached without a final answer.', {}))).toBe(
      'Maximum turns reached without a final answer.',
    );
  });

  it('say on stderr what stopped them and what to do', () => {
    expect(stopMessage('max_turns', 1)).toMatch(
      /^stopped: no final answer after 1 turn \(the turn limit\); raise it with --max-turns/,
    );
    expect(stopMessage('loop_detected', 4, { toolName: 'calc\u001b[2K', repeats: 4 })).toBe(
      "stopped: the model called 'calc^[[2K' with the same arguments 4 times in a row without reaching an answer (loop guard); rephrase the question or try another model\n",
    );
  });
});
