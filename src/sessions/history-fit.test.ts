import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Message, type OpenAIFunctionTool, ZERO_USAGE } from '../core/index.js';
import {
  type FitHistoryRequest,
  fitHistory,
  SUMMARY_PREFIX,
  summaryMessage,
  TurnTokenCache,
} from './history-fit.js';
import type { SessionSummary, SessionTurn } from './session-types.js';
import { estimateCounter, estimateTokens, type TokenCounter } from './token-count.js';
import { isPaired } from './tool-pairing.js';

/** The size of a generated turn: the user message, tool calls with their results, the answer. */
interface TurnShape {
  readonly userChars: number;
  readonly calls: readonly { readonly argChars: number; readonly resultChars: number }[];
  readonly answerChars: number;
}

function makeTurn(seq: number, shape: TurnShape): SessionTurn {
  const messages: Message[] = [{ role: 'user', content: `u${seq} ${'q'.repeat(shape.userChars)}` }];
  if (shape.calls.length > 0) {
    const calls = shape.calls.map((call, index) => ({
      id: `c${seq}_${index}`,
      name: 'lookup',
      arguments: JSON.stringify({ q: 'a'.repeat(call.argChars) }),
    }));
    messages.push({ role: 'assistant', content: '', toolCalls: calls });
    shape.calls.forEach((call, index) => {
      messages.push({
        role: 'tool',
        content: 'r'.repeat(call.resultChars),
        toolCallId: `c${seq}_${index}`,
        name: 'lookup',
      });
    });
  }
  messages.push({ role: 'assistant', content: `a${seq} ${'w'.repeat(shape.answerChars)}` });
  return {
    seq,
    messages,
    agent: 'orchestrator',
    model: 'm',
    engine: 'scripted',
    usage: ZERO_USAGE,
    status: 'completed',
    startedMs: seq * 1000,
    endedMs: seq * 1000 + 10,
  };
}

const small = (seq: number, chars = 90): SessionTurn =>
  makeTurn(seq, { userChars: chars, calls: [], answerChars: chars });

const input: Message[] = [{ role: 'user', content: 'the new question' }];
const tool: OpenAIFunctionTool = {
  type: 'function',
  function: { name: 'lookup', description: 'Looks things up.', parameters: { type: 'object' } },
};

function request(
  overrides: Partial<FitHistoryRequest> & Pick<FitHistoryRequest, 'turns'>,
): FitHistoryRequest {
  return {
    systemPrompt: 'You are helpful.',
    tools: [tool],
    input,
    contextTokens: 1000,
    answerTokens: 200,
    counter: estimateCounter,
    ...overrides,
  };
}

/** Everything the request sends, as a list of messages. */
function sent(req: FitHistoryRequest, history: readonly Message[]): Message[] {
  return [
    ...(req.systemPrompt ? [{ role: 'system' as const, content: req.systemPrompt }] : []),
    ...(req.memoryMessages ?? []),
    ...history,
    ...req.input,
  ];
}

describe('fitHistory', () => {
  it('sends every turn whole, oldest first, when they all fit', async () => {
    const turns = [small(1), small(2), small(3)];
    const req = request({ turns });
    const fit = await fitHistory(req);
    expect(fit.foldTurns).toEqual([]);
    expect(fit.keptTurns).toEqual(turns);
    expect(fit.messages).toEqual(turns.flatMap((turn) => turn.messages));
    expect(fit.promptTokens).toBe(estimateTokens(sent(req, fit.messages), [tool]));
    expect(fit.fits).toBe(true);
  });

  it('puts the summary first as a system message and counts it', async () => {
    const summary: SessionSummary = {
      text: 'They talked about cats.',
      throughSeq: 4,
      updatedMs: 1,
    };
    const req = request({ turns: [small(5)], summary });
    const fit = await fitHistory(req);
    expect(fit.messages[0]).toEqual({
      role: 'system',
      content: `${SUMMARY_PREFIX}They talked about cats.`,
    });
    expect(fit.messages[0]).toEqual(summaryMessage(summary));
    expect(fit.promptTokens).toBe(estimateTokens(sent(req, fit.messages), [tool]));
  });

  it('folds a prefix of whole turns, keeping a tool call with its results', async () => {
    const turns = Array.from({ length: 12 }, (_, index) =>
      makeTurn(index + 1, {
        userChars: 60,
        calls: [{ argChars: 20, resultChars: 150 }],
        answerChars: 60,
      }),
    );
    const fit = await fitHistory(request({ turns, foldToFraction: 1 }));
    expect(fit.foldTurns.length).toBeGreaterThan(0);
    expect([...fit.foldTurns, ...fit.keptTurns]).toEqual(turns);
    expect(isPaired(fit.messages)).toBe(true);
    expect(fit.promptTokens + 200).toBeLessThanOrEqual(1000);
    // Exactly as many as fit: one more turn would not.
    const next = fit.foldTurns.at(-1) as SessionTurn;
    expect(fit.promptTokens + estimateTokens(next.messages) + 200).toBeGreaterThan(1000);
  });

  it('folds down to foldToFraction of the budget, with room for the next summary', async () => {
    const turns = Array.from({ length: 20 }, (_, index) => small(index + 1));
    const fit = await fitHistory(
      request({ turns, summaryReserveTokens: 100, foldToFraction: 0.5 }),
    );
    const fixed = estimateTokens(sent(request({ turns: [] }), []), [tool]);
    const kept = fit.promptTokens - fixed;
    expect(kept).toBeLessThanOrEqual(Math.floor((1000 - 200 - fixed - 100) * 0.5));
    expect(fit.keptTurns.length).toBeGreaterThan(0);
  });

  it('folds the newest turn too when it alone does not fit, and the request still fits', async () => {
    const huge = makeTurn(3, {
      userChars: 10,
      calls: [{ argChars: 5, resultChars: 9000 }],
      answerChars: 10,
    });
    const fit = await fitHistory(request({ turns: [small(1), small(2), huge] }));
    expect(fit.newestTurnTooLarge).toBe(true);
    expect(fit.keptTurns).toEqual([]);
    expect(fit.foldTurns.map((turn) => turn.seq)).toEqual([1, 2, 3]);
    expect(fit.promptTokens + 200).toBeLessThanOrEqual(1000);
  });

  it('leaves the summary out when even it does not fit beside the fixed parts', async () => {
    const summary: SessionSummary = { text: 's'.repeat(3000), throughSeq: 2, updatedMs: 1 };
    const fit = await fitHistory(request({ turns: [], summary }));
    expect(fit.summaryOmitted).toBe(true);
    expect(fit.messages).toEqual([]);
    expect(fit.fits).toBe(true);
  });

  it('says when the fixed parts alone exceed the context', async () => {
    const fit = await fitHistory(request({ turns: [small(1)], systemPrompt: 'x'.repeat(5000) }));
    expect(fit.fits).toBe(false);
    expect(fit.keptTurns).toEqual([]);
  });

  it('counts each turn once across calls with a cache, and again when the counter changes', async () => {
    let counted = 0;
    const spy: TokenCounter = {
      count: (messages, tools) => {
        counted += messages.length;
        return estimateTokens(messages, tools);
      },
    };
    const cache = new TurnTokenCache();
    const turns = Array.from({ length: 50 }, (_, index) => small(index + 1, 5));
    const req = request({ turns, counter: spy, cache, contextTokens: 100_000 });
    const first = await fitHistory(req);
    const firstCount = counted;
    const second = await fitHistory({ ...req, turns: [...turns, small(51, 5)] });
    expect(second.promptTokens - first.promptTokens).toBe(estimateTokens(small(51, 5).messages));
    // Only the new turn (2 messages) and the fixed parts (system prompt + input: 2 messages) were counted again.
    expect(counted - firstCount).toBe(4);
    const other: TokenCounter = { count: (messages, tools) => 2 * estimateTokens(messages, tools) };
    const doubled = await fitHistory({ ...req, counter: other });
    expect(doubled.promptTokens).toBe(2 * first.promptTokens);
  });

  it('waits for an asynchronous counter', async () => {
    const counter: TokenCounter = {
      count: async (messages, tools) => estimateTokens(messages, tools),
    };
    const req = request({ turns: [small(1), small(2)], counter });
    const fit = await fitHistory(req);
    expect(fit.promptTokens).toBe(estimateTokens(sent(req, fit.messages), [tool]));
  });

  it('keeps its promises for any turn sizes, context and reserves (property)', async () => {
    const shape = fc.record({
      userChars: fc.integer({ min: 0, max: 600 }),
      calls: fc.array(
        fc.record({
          argChars: fc.integer({ min: 0, max: 80 }),
          resultChars: fc.integer({ min: 0, max: 4000 }),
        }),
        { maxLength: 3 },
      ),
      answerChars: fc.integer({ min: 0, max: 800 }),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(shape, { maxLength: 30 }),
        fc.integer({ min: 256, max: 8192 }),
        fc.integer({ min: 0, max: 1024 }),
        fc.integer({ min: 0, max: 600 }),
        fc.option(fc.integer({ min: 1, max: 2000 }), { nil: undefined }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        async (shapes, contextTokens, answerTokens, reserve, summaryChars, fraction) => {
          const turns = shapes.map((s, index) => makeTurn(index + 1, s));
          const summary =
            summaryChars === undefined
              ? undefined
              : { text: 's'.repeat(summaryChars), throughSeq: 0, updatedMs: 0 };
          const req = request({
            turns,
            contextTokens,
            answerTokens,
            summary,
            summaryReserveTokens: reserve,
            foldToFraction: fraction,
          });
          checkInvariants(req, await fitHistory(req));
        },
      ),
      { numRuns: 200 },
    );
  });
});

function checkInvariants(
  req: FitHistoryRequest,
  fit: Awaited<ReturnType<typeof fitHistory>>,
): void {
  const room = req.contextTokens - req.answerTokens;
  const fixed = estimateTokens(sent(req, []), [tool]);
  // A prefix is folded, the rest kept whole and in order.
  expect([...fit.foldTurns, ...fit.keptTurns]).toEqual(req.turns);
  const history = fit.messages.filter((message) => !message.content.startsWith(SUMMARY_PREFIX));
  expect(history).toEqual(fit.keptTurns.flatMap((turn) => turn.messages));
  expect(isPaired(history)).toBe(true);
  // The counted tokens are the real count of the request, and it fits whenever the fixed parts do.
  expect(fit.promptTokens).toBe(estimateTokens(sent(req, fit.messages), [tool]));
  expect(fit.fits).toBe(fit.promptTokens <= room);
  if (fixed <= room) expect(fit.fits).toBe(true);
  const summaryTokens =
    req.summary === undefined ? 0 : estimateTokens([summaryMessage(req.summary)]);
  const all = req.turns.reduce((sum, turn) => sum + estimateTokens(turn.messages), 0);
  if (fixed + summaryTokens + all <= room) expect(fit.foldTurns).toEqual([]);
  // The newest turn is kept whenever it fits on its own beside the fixed parts and the summary's room.
  const newest = req.turns.at(-1);
  if (newest !== undefined) {
    const roomForNewest = room - fixed - Math.max(summaryTokens, req.summaryReserveTokens ?? 0);
    const newestTokens = estimateTokens(newest.messages);
    if (!fit.summaryOmitted && newestTokens <= roomForNewest)
      expect(fit.keptTurns.at(-1)).toBe(newest);
    expect(fit.newestTurnTooLarge).toBe(fit.keptTurns.length === 0 && fit.foldTurns.length > 0);
  }
}
