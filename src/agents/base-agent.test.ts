import { describe, expect, it } from 'vitest';
import {
  type AgentResult,
  Conversation,
  createAgentContext,
  EventBus,
  type InferenceEngine,
} from '../core/index.js';
import { InstrumentedEngine } from '../telemetry/index.js';
import { assistantReply, errorReply, ScriptedEngine } from '../testing/index.js';
import { buildAgentMessages, MAX_TURNS_MESSAGE, stripThinkTags } from './agent-messages.js';
import { BaseAgent, type BaseAgentOptions } from './base-agent.js';

class EchoAgent extends BaseAgent {
  readonly agentId = 'echo';

  async run(input: string): Promise<AgentResult> {
    this.publishTurnStart(input);
    const answer = await this.generate(this.buildMessages(input), { turn: 1 });
    this.publishTurnEnd({ turns: 1 });
    return { content: answer.content, toolResults: [], turns: 1, metadata: {} };
  }

  limit(): AgentResult {
    return this.maxTurnsResult({ toolResults: [], turns: 3, metadata: { usage: 1 } });
  }
}

function agent(engine: InferenceEngine, extra: Partial<BaseAgentOptions> = {}) {
  const bus = new EventBus({ recordHistory: true });
  return { bus, agent: new EchoAgent({ engine, model: 'm', bus, ...extra }) };
}

describe('agent messages', () => {
  it('puts the system prompt first, then the context conversation, then the input', () => {
    const conversation = new Conversation({
      messages: [
        { role: 'system', content: 'memory' },
        { role: 'user', content: 'earlier' },
      ],
    });
    expect(buildAgentMessages('now', createAgentContext({ conversation }), 'be brief')).toEqual([
      { role: 'system', content: 'be brief' },
      { role: 'system', content: 'memory' },
      { role: 'user', content: 'earlier' },
      { role: 'user', content: 'now' },
    ]);
    expect(buildAgentMessages('now')).toEqual([{ role: 'user', content: 'now' }]);
  });

  it('strips think blocks from final answers', () => {
    expect(stripThinkTags('<think>x</think>Answer')).toBe('Answer');
    expect(stripThinkTags('reasoning</think>Answer')).toBe('Answer');
    expect(stripThinkTags('<think>a</think>')).toBe('');
    expect(stripThinkTags('  plain answer ')).toBe('plain answer');
  });
});

describe('BaseAgent', () => {
  it('calls the engine with its model, temperature 0.7 and 1024 tokens by default', async () => {
    const engine = new ScriptedEngine([assistantReply('hi')]);
    const { agent: echo } = agent(engine);
    expect((await echo.run('hello')).content).toBe('hi');
    expect(engine.calls[0]?.options).toMatchObject({
      model: 'm',
      temperature: 0.7,
      maxTokens: 1024,
    });
    engine.assertAllStepsConsumed();
  });

  it('publishes inference events around engine calls, including failed ones', async () => {
    const engine = new ScriptedEngine([assistantReply('hi'), errorReply(new Error('server down'))]);
    const { agent: echo, bus } = agent(engine, { temperature: 0, maxTokens: 5 });
    await echo.run('hello');
    await expect(echo.run('again')).rejects.toThrow('server down');
    expect(bus.history.map((event) => event.type)).toEqual([
      'agent_turn_start',
      'inference_start',
      'inference_end',
      'agent_turn_end',
      'agent_turn_start',
      'inference_start',
      'inference_end',
    ]);
    expect(bus.history[1]?.data).toEqual({ model: 'm', engine: 'scripted', turn: 1 });
    expect(bus.history[2]?.data).toMatchObject({ success: true, turn: 1 });
    expect(bus.history[6]?.data).toMatchObject({
      success: false,
      error: expect.stringContaining('server down'),
    });
  });

  it('publishes one inference pair per model call, with its turn, over an instrumented engine too', async () => {
    const bus = new EventBus({ recordHistory: true });
    const scripted = new ScriptedEngine([assistantReply('hi'), assistantReply('again')]);
    const instrumented = new InstrumentedEngine({ engine: scripted, bus });
    // A pass-through layer (retries, logging) around the instrumented engine must not change the events.
    const wrapped: InferenceEngine = {
      engineId: instrumented.engineId,
      generate: (messages, options) => instrumented.generate(messages, options),
      stream: (messages, options) => instrumented.stream(messages, options),
      listModels: () => instrumented.listModels(),
      health: () => instrumented.health(),
      close: () => instrumented.close(),
    };
    await new EchoAgent({ engine: instrumented, model: 'm', bus }).run('hello');
    await new EchoAgent({ engine: wrapped, model: 'm', bus }).run('again');
    const oneRun = [
      'agent_turn_start',
      'inference_start',
      'telemetry_record',
      'inference_end',
      'agent_turn_end',
    ];
    expect(bus.history.map((event) => event.type)).toEqual([...oneRun, ...oneRun]);
    expect(bus.history[1]?.data).toEqual({ model: 'm', engine: 'scripted', turn: 1 });
    expect(bus.history[3]?.data).toMatchObject({ turn: 1, success: true, ttftSeconds: 0 });
    expect(bus.history[6]?.data).toEqual({ model: 'm', engine: 'scripted', turn: 1 });
    scripted.assertAllStepsConsumed();
  });

  it('publishes a failed call with usage zero and its error redacted of secret shapes', async () => {
    const failure = new Error('denied: Bearer tok_0123456789abcdef');
    const { agent: echo, bus } = agent(new ScriptedEngine([errorReply(failure)]));
    await expect(echo.run('hello')).rejects.toBe(failure);
    expect(bus.history.at(-1)?.data).toEqual({
      model: 'm',
      engine: 'scripted',
      turn: 1,
      success: false,
      latencySeconds: expect.any(Number),
      usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
      ttftSeconds: 0,
      error: 'denied: Bearer [REDACTED]',
    });
  });

  it('builds the documented max-turns result', () => {
    const { agent: echo, bus } = agent(new ScriptedEngine([]));
    expect(echo.limit()).toEqual({
      content: MAX_TURNS_MESSAGE,
      toolResults: [],
      turns: 3,
      metadata: { usage: 1, max_turns_exceeded: true },
    });
    expect(bus.history.at(-1)?.data).toEqual({ agent: 'echo', turns: 3, maxTurnsExceeded: true });
  });
});
