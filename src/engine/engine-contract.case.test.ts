import { describe, expect, it } from 'vitest';
import {
  EngineError,
  type InferenceEngine,
  type Message,
  type OpenAIFunctionTool,
  type StreamChunk,
} from '../core/index.js';
import {
  delayReply,
  type ScriptedOpenAIServer,
  type ScriptedServerMode,
  type ScriptedServerOptions,
} from '../testing/scripted-server.js';
import {
  closedPortUrl,
  collectStream,
  engineTestKit,
  readStream,
  streamedText,
  toolCallsOf,
} from './engine-test-support.case.test.js';

/** Where the engine under test should connect. */
export interface EngineContractAddress {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** `url + '/v1'`. */
  readonly baseUrl: string;
}

/** How to run the shared engine contract against one engine. */
export interface EngineContractSetup {
  readonly name: string;
  /** The API the scripted server speaks for this engine; default `openai`. */
  readonly serverMode?: ScriptedServerMode;
  /** Builds the engine under test for the given address (a scripted server, or a closed port). */
  makeEngine(address: EngineContractAddress): InferenceEngine;
}

const MODEL = 'contract-model';
const CALCULATOR: OpenAIFunctionTool = {
  type: 'function',
  function: {
    name: 'calculator',
    description: 'Evaluates an arithmetic expression.',
    parameters: {
      type: 'object',
      properties: { expression: { type: 'string' } },
      required: ['expression'],
    },
  },
};
const QUESTION: readonly Message[] = [{ role: 'user', content: 'What is 2+2?' }];

/** Resolves when the scripted server has received `count` requests (on the event loop, no timers). */
async function untilRequests(server: ScriptedOpenAIServer, count: number): Promise<void> {
  for (let round = 0; round < 100_000 && server.requests.length < count; round += 1) {
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

/**
 * The contract every HTTP inference engine fulfils, run against the scripted model server: answers, tool
 * calls, streaming, model list, health, close, cancellation, a cut-off stream, and the request it sends.
 */
export function describeEngineContract(setup: EngineContractSetup): void {
  const mode = setup.serverMode ?? 'openai';

  describe(`${setup.name} engine contract`, () => {
    const kit = engineTestKit();
    const scripted = (options: Omit<ScriptedServerOptions, 'mode'>) =>
      kit.scriptedEngine({ ...options, mode } as ScriptedServerOptions, (server) =>
        setup.makeEngine({ url: server.url, baseUrl: server.baseUrl }),
      );

    it('generate returns the text, usage, finish reason and model', async () => {
      const { server, engine } = await scripted({
        script: [{ content: 'Four.', usage: { promptTokens: 12, completionTokens: 3 } }],
      });
      const result = await engine.generate(QUESTION, { model: MODEL });
      expect(result).toMatchObject({
        content: 'Four.',
        toolCalls: [],
        finishReason: 'stop',
        model: MODEL,
        usage: { promptTokens: 12, completionTokens: 3, totalTokens: 15 },
      });
      expect(result.ttftSeconds).toBeGreaterThan(0);
      expect(result.reasoning ?? '').toBe('');
      server.assertAllRepliesConsumed();
    });

    it('generate returns tool calls flat, with arguments as a JSON string', async () => {
      const { engine } = await scripted({
        script: [
          {
            toolCalls: [
              { id: 'call_a', name: 'calculator', arguments: { expression: '2+2' } },
              { id: 'call_b', name: 'calculator', arguments: '{"expression":"3*3"}' },
            ],
          },
        ],
      });
      const result = await engine.generate(QUESTION, { model: MODEL, tools: [CALCULATOR] });
      expect(result.toolCalls).toHaveLength(2);
      for (const call of result.toolCalls) {
        expect(call.name).toBe('calculator');
        expect(typeof call.arguments).toBe('string');
        expect(call.id).not.toBe('');
      }
      expect(JSON.parse(result.toolCalls[0]?.arguments ?? '')).toEqual({ expression: '2+2' });
      expect(JSON.parse(result.toolCalls[1]?.arguments ?? '')).toEqual({ expression: '3*3' });
      expect(new Set(result.toolCalls.map((call) => call.id)).size).toBe(2);
    });

    it('generate keeps the reasoning out of the answer', async () => {
      const { engine } = await scripted({
        script: [{ reasoning: 'Two and two.', content: 'Four.' }],
      });
      const result = await engine.generate(QUESTION, { model: MODEL });
      expect(result.content).toBe('Four.');
      expect(result.reasoning).toBe('Two and two.');
    });

    it('stream yields the text as deltas, then one end chunk with usage', async () => {
      const { engine } = await scripted({
        script: [
          { content: 'Two and two make four.', usage: { promptTokens: 5, completionTokens: 6 } },
        ],
      });
      const chunks = await collectStream(engine.stream(QUESTION, { model: MODEL }));
      expect(chunks.filter((chunk) => chunk.type === 'text_delta').length).toBeGreaterThan(1);
      expect(streamedText(chunks, 'text_delta')).toBe('Two and two make four.');
      expect(chunks.filter((chunk) => chunk.type === 'end')).toHaveLength(1);
      expect(chunks.at(-1)).toMatchObject({
        type: 'end',
        finishReason: 'stop',
        model: MODEL,
        usage: { promptTokens: 5, completionTokens: 6, totalTokens: 11 },
      });
    });

    it('stream yields each tool call once, whole', async () => {
      const { engine } = await scripted({
        script: [
          { toolCalls: [{ id: 'call_x', name: 'calculator', arguments: { expression: '6*7' } }] },
        ],
      });
      const chunks = await collectStream(
        engine.stream(QUESTION, { model: MODEL, tools: [CALCULATOR] }),
      );
      const calls = toolCallsOf(chunks);
      expect(calls).toHaveLength(1);
      expect(calls[0]?.name).toBe('calculator');
      expect(JSON.parse(calls[0]?.arguments ?? '')).toEqual({ expression: '6*7' });
      expect(chunks.at(-1)?.type).toBe('end');
    });

    it('a stream cut off mid-way throws engine_stream_cut, never a quiet partial answer', async () => {
      const { server, engine } = await scripted({
        script: [
          { fault: 'cut_stream', afterChunks: 2, reply: { content: 'one two three four five' } },
        ],
      });
      const chunks: StreamChunk[] = [];
      const outcome = readStream(engine.stream(QUESTION, { model: MODEL }), chunks);
      await expect(outcome).rejects.toMatchObject({ code: 'engine_stream_cut' });
      expect(chunks.some((chunk) => chunk.type === 'end')).toBe(false);
      expect(server.requests).toHaveLength(1);
    });

    it('listModels returns the served model ids', async () => {
      const { engine } = await scripted({ script: [], models: ['alpha', 'beta'] });
      expect(await engine.listModels()).toEqual(['alpha', 'beta']);
    });

    it('health is true for a live server and false (never a throw) for a closed port', async () => {
      const { engine } = await scripted({ script: [] });
      expect(await engine.health()).toBe(true);
      const url = await closedPortUrl();
      const dead = kit.track(setup.makeEngine({ url, baseUrl: `${url}/v1` }));
      expect(await dead.health()).toBe(false);
    });

    it('close is harmless twice, and calls after it fail with an EngineError', async () => {
      const { engine } = await scripted({ script: [] });
      await engine.close();
      await engine.close();
      await expect(engine.generate(QUESTION, { model: MODEL })).rejects.toBeInstanceOf(EngineError);
    });

    it('a signal cancels generate promptly with engine_cancelled', async () => {
      const { server, engine } = await scripted({
        script: [delayReply(60_000, { content: 'too late' })],
      });
      const controller = new AbortController();
      const pending = engine.generate(QUESTION, { model: MODEL, signal: controller.signal });
      await untilRequests(server, 1);
      controller.abort();
      await expect(pending).rejects.toMatchObject({ code: 'engine_cancelled' });
      expect(server.requests).toHaveLength(1);
    });

    it('a signal cancels a stream mid-way with engine_cancelled', async () => {
      const { engine } = await scripted({ script: [{ fault: 'stall', afterChunks: 2 }] });
      const controller = new AbortController();
      const seen: StreamChunk[] = [];
      const outcome = readStream(
        engine.stream(QUESTION, { model: MODEL, signal: controller.signal }),
        seen,
        (chunk) => {
          if (chunk.type === 'text_delta') controller.abort();
        },
      );
      await expect(outcome).rejects.toMatchObject({ code: 'engine_cancelled' });
      expect(seen.some((chunk) => chunk.type === 'end')).toBe(false);
    });

    it('an already aborted signal rejects with engine_cancelled', async () => {
      const { engine } = await scripted({ script: [] });
      const signal = AbortSignal.abort();
      await expect(engine.generate(QUESTION, { model: MODEL, signal })).rejects.toMatchObject({
        code: 'engine_cancelled',
      });
    });

    it('sends the conversation, tool calls, tool results and options in its wire format', async () => {
      const { server, engine } = await scripted({ script: [{ content: 'It is 4.' }] });
      const conversation: Message[] = [
        { role: 'system', content: 'Be brief.' },
        ...QUESTION,
        {
          role: 'assistant',
          content: '',
          toolCalls: [{ id: 'call_1', name: 'calculator', arguments: '{"expression":"2+2"}' }],
        },
        { role: 'tool', content: '4', toolCallId: 'call_1', name: 'calculator' },
      ];
      await engine.generate(conversation, {
        model: MODEL,
        tools: [CALCULATOR],
        temperature: 0.2,
        maxTokens: 64,
      });
      const body = server.requests[0]?.body as Record<string, unknown>;
      expect(body.model).toBe(MODEL);
      expect(body.tools).toEqual([CALCULATOR]);
      const messages = body.messages as Record<string, unknown>[];
      expect(messages.map((message) => message.role)).toEqual([
        'system',
        'user',
        'assistant',
        'tool',
      ]);
      expect(messages[0]?.content).toBe('Be brief.');
      expect(messages[3]?.content).toBe('4');
      const calls = messages[2]?.tool_calls as { function: { name: string; arguments: unknown } }[];
      const call = calls?.[0];
      expect(call?.function.name).toBe('calculator');
      if (mode === 'openai') {
        expect(body).toMatchObject({ temperature: 0.2, max_tokens: 64, stream: false });
        expect(messages[2]?.tool_calls).toEqual([
          {
            id: 'call_1',
            type: 'function',
            function: { name: 'calculator', arguments: '{"expression":"2+2"}' },
          },
        ]);
        expect(messages[3]).toMatchObject({ tool_call_id: 'call_1' });
      } else {
        expect(body).toMatchObject({
          stream: false,
          options: { temperature: 0.2, num_predict: 64 },
        });
        expect(call?.function.arguments).toEqual({ expression: '2+2' });
      }
    });
  });
}
