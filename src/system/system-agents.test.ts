import { describe, expect, it } from 'vitest';
import { CustomAgent } from '../agents/index.js';
import {
  type AgentRegistryEntry,
  type AgentResult,
  EventBus,
  JarvisError,
  NoSuchAgentError,
  Registry,
} from '../core/index.js';
import { ScriptedEngine } from '../testing/index.js';
import { registerBuiltinAgents } from './builtins.js';
import {
  type AgentBuildOptions,
  checkRunnableAgent,
  createRegisteredAgent,
  unknownAgentError,
} from './system-agents.js';

function builtinAgents(): Registry<AgentRegistryEntry> {
  const agents = new Registry<AgentRegistryEntry>('agents');
  registerBuiltinAgents(agents);
  return agents;
}

function buildOptions(): AgentBuildOptions {
  return {
    engine: new ScriptedEngine(),
    model: 'm',
    tools: [],
    bus: new EventBus(),
    temperature: 0,
    maxTokens: 10,
    maxTurns: 2,
  };
}

function thrown(action: () => unknown): JarvisError {
  try {
    action();
  } catch (error) {
    if (JarvisError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a JarvisError');
}

describe('unknown agent names', () => {
  it('keeps the message start and code, and suggests the closest name', () => {
    const error = unknownAgentError('orchestrater', builtinAgents().keys());
    expect(error.code).toBe('unknown_agent');
    expect(error.message).toMatch(/^Unknown agent 'orchestrater'\. Available: .*orchestrator/);
    expect(error.message).toMatch(/\. Did you mean 'orchestrator'\?$/);
  });

  it('suggests nothing for a name close to none, and shows a hostile name as escapes', () => {
    const error = unknownAgentError('zzzzzzzz', ['simple', 'orchestrator']);
    expect(error.message).toBe("Unknown agent 'zzzzzzzz'. Available: orchestrator, simple");
    const hostile = unknownAgentError('x\u001b]0;pwned\u0007\n', ['simple']);
    expect(hostile.message).toBe("Unknown agent 'x^[]0;pwned\\u{7}\\n'. Available: simple");
  });

  it('createRegisteredAgent refuses a misspelled agent with a suggestion', () => {
    const error = thrown(() => createRegisteredAgent('simpel', builtinAgents(), buildOptions()));
    expect(error.code).toBe('unknown_agent');
    expect(error).toBeInstanceOf(NoSuchAgentError);
    expect((error as NoSuchAgentError).agentName).toBe('simpel');
    expect((error as NoSuchAgentError).availableAgents).toContain('simple');
    expect(error.message).toContain("Did you mean 'simple'?");
  });
});

describe('template agents', () => {
  it('refuses to run custom by name, saying it is a template and how to use it', () => {
    const error = thrown(() => createRegisteredAgent('custom', builtinAgents(), buildOptions()));
    expect(error.code).toBe('invalid_argument');
    expect(error.message).toMatch(/^'custom' is a template, not an agent you can run by name: /);
    expect(error.message).toContain('subclass CustomAgent');
    expect(error.message).toContain("@AgentRegistry.register('your-agent')");
    expect(error.message).toMatch(/Runnable agents: .*orchestrator/);
    expect(error.message).not.toMatch(/Runnable agents: .*custom/);
  });

  it('leaves the template out of unknown-name lists and suggestions', () => {
    const error = thrown(() => checkRunnableAgent('custon', builtinAgents()));
    expect(error.code).toBe('unknown_agent');
    expect(error.message).not.toContain('custom');
  });

  it('runs a registered subclass of CustomAgent', async () => {
    class EchoAgent extends CustomAgent {
      override async run(input: string): Promise<AgentResult> {
        return { content: `echo ${input}`, toolResults: [], turns: 1, metadata: {} };
      }
    }
    const agents = builtinAgents();
    agents.registerValue('echo', EchoAgent);
    const agent = createRegisteredAgent('echo', agents, buildOptions());
    expect((await agent.run('hi')).content).toBe('echo hi');
  });
});
