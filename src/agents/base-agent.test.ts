import { describe, expect, it } from 'vitest';
import {
  type AgentResult,
  Conversation,
  createAgentContext,
  EventBus,
  type InferenceEngine,
} from '../core/index.js';
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

  it('leaves inference events to an instrumented engine', async () => {
    const scripted = new ScriptedEngine([assistantReply('hi')]);
    const instrumented: InferenceEngine & { isInstrumented: true } = {
      engineId: scripted.engineId,
      isInstrumented: true,
      generate: (messages, options) => scripted.generate(messages, options),
      stream: (messages, options) => scripted.stream(messages, options),
      listModels: () => scripted.listModels(),
      health: () => scripted.health(),
      close: () => scripted.close(),
    };
    const { agent: echo, bus } = agent(instrumented);
    await echo.run('hello');
    expect(bus.history.map((event) => event.type)).toEqual(['agent_turn_start', 'agent_turn_end']);
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
