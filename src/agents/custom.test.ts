import { afterEach, describe, expect, it } from 'vitest';
import {
  type AgentContext,
  AgentError,
  AgentRegistry,
  type AgentResult,
  type InferenceEngine,
} from '../core/index.js';
import { ScriptedEngine } from '../testing/index.js';
import { BaseAgent } from './base-agent.js';
import { CUSTOM_AGENT_NOT_IMPLEMENTED_MESSAGE, CustomAgent } from './custom.js';

async function rejection(promise: Promise<unknown>): Promise<AgentError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!(error instanceof AgentError))
    throw new Error(`expected an AgentError, got ${String(error)}`);
  return error;
}

describe('CustomAgent', () => {
  afterEach(() => {
    AgentRegistry.delete('my-agent');
  });

  it('can be built without arguments and rejects run with agent_not_implemented', async () => {
    const agent = new CustomAgent();
    expect(agent.agentId).toBe('custom');
    const error = await rejection(agent.run('Hello'));
    expect(error.code).toBe('agent_not_implemented');
    expect(error.agentId).toBe('custom');
    expect(error.message).toBe(CUSTOM_AGENT_NOT_IMPLEMENTED_MESSAGE);
    expect(error.message).toContain('Subclass CustomAgent (or BaseAgent)');
    expect(error.message).toContain('override run()');
    expect(error.message).toContain("@AgentRegistry.register('your-agent')");
    expect(error.partialResult).toEqual({
      content: '',
      toolResults: [],
      turns: 0,
      metadata: {},
      messages: [],
    });
  });

  it('accepts the options the SDK passes to every agent', async () => {
    const engine = new ScriptedEngine([]);
    const agent = new CustomAgent({ engine, model: 'm', temperature: 0.2, maxTokens: 5 });
    await expect(agent.run('Hello')).rejects.toMatchObject({ code: 'agent_not_implemented' });
    expect(engine.calls).toHaveLength(0);
  });

  it('works as a base class: a subclass with its own run and key', async () => {
    class EchoAgent extends CustomAgent {
      override readonly agentId = 'echo';

      override async run(input: string): Promise<AgentResult> {
        return { content: `${this.model}: ${input}`, toolResults: [], turns: 1, metadata: {} };
      }
    }
    const agent = new EchoAgent({ model: 'tiny' });
    expect(agent.agentId).toBe('echo');
    expect(await agent.run('hi')).toMatchObject({ content: 'tiny: hi', turns: 1 });
  });

  it('supports the agents.md registration example in TypeScript', async () => {
    @AgentRegistry.register('my-agent')
    class MyAgent extends BaseAgent {
      readonly agentId = 'my-agent';

      async run(input: string, _context?: AgentContext): Promise<AgentResult> {
        const result = await this.engine.generate([{ role: 'user', content: input }], {
          model: this.model,
        });
        return { content: result.content, toolResults: [], turns: 1, metadata: {} };
      }
    }
    const engine: InferenceEngine = new ScriptedEngine(['Hi there!']);
    expect(AgentRegistry.get('my-agent')).toBe(MyAgent);
    const agent = AgentRegistry.create('my-agent', { engine, model: 'm' });
    expect(await agent.run('Hello')).toMatchObject({ content: 'Hi there!', turns: 1 });
  });
});
