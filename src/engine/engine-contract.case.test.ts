import { describe, expect, it } from 'vitest';
import {
  EngineError,
  type InferenceEngine,
  type Message,
  type StreamChunk,
} from '../core/index.js';
import { describeHttpEngineContract, httpEngineShowing } from './engine-contract-http.case.test.js';
import {
  collectStream,
  type EngineBehaviour,
  type EngineTestKit,
  engineTestKit,
  type HttpEngineContractSetup,
  type InProcessEngineContractSetup,
  readStream,
} from './engine-test-support.case.test.js';

/** How to run the engine contract against one engine: on a model server, or in-process. */
export type EngineContractSetup = HttpEngineContractSetup | InProcessEngineContractSetup;

const QUESTION: readonly Message[] = [{ role: 'user', content: 'What is 2+2?' }];
/** Short answers for engines that generate for real (the embedded one); the fakes ignore `maxTokens`. */
const SHORT = { model: 'contract-model', maxTokens: 8 } as const;
const LONG = { model: 'contract-model', maxTokens: 400 } as const;

/**
 * The contract every `InferenceEngine` fulfils: exactly one `end` chunk, last; a cut-off stream throws;
 * cancellation before and during a call; `close` twice; `health` that never throws. Engines on a model server
 * also run its HTTP part (answers, tool calls, reasoning, model list, the request they send).
 */
export function describeEngineContract(setup: EngineContractSetup): void {
  describe(`${setup.name} engine contract`, () => {
    const kit = engineTestKit();
    if ('makeEngine' in setup) {
      const behaviours: EngineBehaviour[] = ['answer', 'long', 'cut_stream', 'down'];
      describeBasics(behaviours, (behaviour) => httpEngineShowing(setup, kit, behaviour), kit);
      describeHttpEngineContract(setup, kit);
    } else {
      const make = (behaviour: EngineBehaviour) => setup.makeEngineShowing(behaviour, kit);
      describeBasics(setup.behaviours, make, kit);
    }
  });
}

/** The part of the contract that needs no server: end, cut, cancellation, close, health. */
function describeBasics(
  behaviours: readonly EngineBehaviour[],
  make: (behaviour: EngineBehaviour) => Promise<InferenceEngine>,
  kit: EngineTestKit,
): void {
  const showing = async (behaviour: EngineBehaviour) => kit.track(await make(behaviour));
  if (behaviours.includes('answer')) describeAnswers(showing);
  if (behaviours.includes('cut_stream')) {
    it('a stream cut off mid-way throws engine_stream_cut, never a quiet partial answer', async () => {
      const chunks: StreamChunk[] = [];
      const outcome = readStream((await showing('cut_stream')).stream(QUESTION, SHORT), chunks);
      await expect(outcome).rejects.toMatchObject({ code: 'engine_stream_cut' });
      expect(chunks.some((chunk) => chunk.type === 'end')).toBe(false);
    });
  }
  if (behaviours.includes('long')) {
    it('a signal cancels a stream mid-way with engine_cancelled', async () => {
      const engine = await showing('long');
      const controller = new AbortController();
      const seen: StreamChunk[] = [];
      const outcome = readStream(
        engine.stream(QUESTION, { ...LONG, signal: controller.signal }),
        seen,
        (chunk) => {
          if (chunk.type === 'text_delta') controller.abort();
        },
      );
      await expect(outcome).rejects.toMatchObject({ code: 'engine_cancelled' });
      expect(seen.some((chunk) => chunk.type === 'text_delta')).toBe(true);
      expect(seen.some((chunk) => chunk.type === 'end')).toBe(false);
    });
  }
  it('health is false (never a throw) when the engine is down', async () => {
    expect(await (await showing('down')).health()).toBe(false);
  });
}

/** The contract of an engine that can answer: one end chunk, cancellation before a call, close, health. */
function describeAnswers(showing: (behaviour: EngineBehaviour) => Promise<InferenceEngine>): void {
  it('stream yields its chunks, then exactly one end chunk, last', async () => {
    const chunks = await collectStream((await showing('answer')).stream(QUESTION, SHORT));
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.filter((chunk) => chunk.type === 'end')).toHaveLength(1);
    expect(chunks.at(-1)?.type).toBe('end');
  });

  it('an already aborted signal rejects with engine_cancelled', async () => {
    const engine = await showing('answer');
    const signal = AbortSignal.abort();
    await expect(engine.generate(QUESTION, { ...SHORT, signal })).rejects.toMatchObject({
      code: 'engine_cancelled',
    });
  });

  it('close is harmless twice, and calls after it fail with an EngineError', async () => {
    const engine = await showing('answer');
    await engine.close();
    await engine.close();
    await expect(engine.generate(QUESTION, SHORT)).rejects.toBeInstanceOf(EngineError);
  });

  it('health is true when it can answer, and false (never a throw) once closed', async () => {
    const engine = await showing('answer');
    expect(await engine.health()).toBe(true);
    await engine.close();
    expect(await engine.health()).toBe(false);
  });
}
