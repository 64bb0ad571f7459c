import { describe, expect, it } from 'vitest';
import type { InferenceEngine, Message, OpenAIFunctionTool, StreamChunk } from '../core/index.js';
import {
  delayReply,
  type ScriptedOpenAIServer,
  type ScriptedServerMode,
  type ScriptedServerOptions,
} from '../testing/scripted-server.js';
import {
  closedPortUrl,
  collectStream,
  type EngineBehaviour,
  type EngineContractAddress,
  type EngineTestKit,
  type HttpEngineContractSetup,
  readStream,
  streamedText,
  toolCallsOf,
} from './engine-test-support.case.test.js';

// The HTTP part of the engine contract (see engine-contract.case.test.ts), run against the scripted model server.

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

/** A calculator call as a model without a tool-call parser writes it into its text. */
const TEXT_CALL =
  '<tool_call>{"name": "calculator", "arguments": {"expression": "2+2"}}</tool_call>';

/** A whole streamed answer ('one two three') in each wire format, sent in one write. */
const WHOLE_ANSWER: Readonly<Record<ScriptedServerMode, { type: string; body: string }>> = {
  openai: {
    type: 'text/event-stream',
    body: [
      ...['one ', 'two ', 'three'].map((content) => ({
        choices: [{ index: 0, delta: { content } }],
      })),
      { choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
    ]
      .map((event) => `data: ${JSON.stringify(event)}\n\n`)
      .join('')
      .concat('data: [DONE]\n\n'),
  },
  ollama: {
    type: 'application/x-ndjson',
    body: [
      ...['one ', 'two ', 'three'].map((content) => ({ message: { content }, done: false })),
      { message: { content: '' }, done: true, done_reason: 'stop' },
    ]
      .map((line) => `${JSON.stringify(line)}\n`)
      .join(''),
  },
};

/** Resolves when the scripted server has received `count` requests (on the event loop, no timers). */
async function untilRequests(server: ScriptedOpenAIServer, count: number): Promise<void> {
  for (let round = 0; round < 100_000 && server.requests.length < count; round += 1) {
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

/** The scripted server's script that makes an HTTP engine show a behaviour of the contract. */
const BEHAVIOUR_SCRIPTS: Readonly<
  Record<Exclude<EngineBehaviour, 'down'>, Omit<ScriptedServerOptions, 'mode'>>
> = {
  answer: { script: [{ content: 'Two and two make four.' }] },
  long: { script: [{ fault: 'stall', afterChunks: 2 }] },
  cut_stream: {
    script: [
      { fault: 'cut_stream', afterChunks: 2, reply: { content: 'one two three four five' } },
    ],
  },
};

/** Makes an HTTP engine that shows `behaviour`: on a scripted server, or on a closed port for `down`. */
export async function httpEngineShowing(
  setup: HttpEngineContractSetup,
  kit: EngineTestKit,
  behaviour: EngineBehaviour,
): Promise<InferenceEngine> {
  const make = (address: EngineContractAddress) => setup.makeEngine(address);
  if (behaviour === 'down') {
    const url = await closedPortUrl();
    return kit.track(make({ url, baseUrl: `${url}/v1` }));
  }
  const mode = setup.serverMode ?? 'openai';
  const options = { ...BEHAVIOUR_SCRIPTS[behaviour], mode } as ScriptedServerOptions;
  const { engine } = await kit.scriptedEngine(options, (server) =>
    make({ url: server.url, baseUrl: server.baseUrl }),
  );
  return engine;
}

/**
 * The HTTP part of the contract, run against the scripted model server: answers, tool calls, reasoning,
 * streaming, the model list, cancellation of a request, a cut-off stream, and the request it sends.
 */
export function describeHttpEngineContract(
  setup: HttpEngineContractSetup,
  kit: EngineTestKit,
): void {
  const mode = setup.serverMode ?? 'openai';
  describe('over HTTP', () => {
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

    it('stops at cancellation even when the rest of the answer has already arrived', async () => {
      const url = await kit.rawServer((_request, res) => {
        res.writeHead(200, { 'content-type': WHOLE_ANSWER[mode].type });
        res.end(WHOLE_ANSWER[mode].body);
      });
      const engine = kit.track(setup.makeEngine({ url, baseUrl: `${url}/v1` }));
      const controller = new AbortController();
      const seen: StreamChunk[] = [];
      const outcome = readStream(
        engine.stream(QUESTION, { model: MODEL, signal: controller.signal }),
        seen,
        () => controller.abort(),
      );
      await expect(outcome).rejects.toMatchObject({ code: 'engine_cancelled' });
      expect(seen).toEqual([{ type: 'text_delta', text: 'one ' }]);
    });

    it("leaves tool calls written as text alone when toolChoice is 'none', whole and streamed", async () => {
      const { engine } = await scripted({
        script: [{ content: TEXT_CALL }, { content: TEXT_CALL }],
      });
      const options = { model: MODEL, tools: [CALCULATOR], toolChoice: 'none' } as const;
      const result = await engine.generate(QUESTION, options);
      expect(result).toMatchObject({ content: TEXT_CALL, toolCalls: [], finishReason: 'stop' });
      const chunks = await collectStream(engine.stream(QUESTION, options));
      expect(toolCallsOf(chunks)).toEqual([]);
      expect(streamedText(chunks, 'text_delta')).toBe(TEXT_CALL);
      expect(chunks.at(-1)).toMatchObject({ type: 'end', finishReason: 'stop' });
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
