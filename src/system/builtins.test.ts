import { describe, expect, it } from 'vitest';
import { NativeReActAgent, OrchestratorAgent } from '../agents/index.js';
import { type AgentRegistryEntry, Registry, type ToolRegistryEntry } from '../core/index.js';
import { assistantReply, ScriptedEngine } from '../testing/index.js';
import { CalculatorTool, ThinkTool, ToolExecutor } from '../tools/index.js';
import { registerBuiltinAgents, registerBuiltins } from './builtins.js';

describe('registerBuiltins', () => {
  it('registers calculator and think under their keys, idempotently', () => {
    const tools = new Registry<ToolRegistryEntry>('ToolRegistry');
    registerBuiltins(tools);
    registerBuiltins(tools);
    expect(tools.keys()).toEqual(['calculator', 'think']);
    expect(tools.create('calculator')).toBeInstanceOf(CalculatorTool);
    expect(tools.create('think')).toBeInstanceOf(ThinkTool);
  });

  it('keeps a tool the user registered under a built-in key', () => {
    const tools = new Registry<ToolRegistryEntry>('ToolRegistry');
    const mine = () => new ThinkTool();
    tools.registerValue('calculator', mine);
    registerBuiltins(tools);
    expect(tools.get('calculator')).toBe(mine);
    expect(tools.keys()).toEqual(['calculator', 'think']);
  });

  it('gives tools that work through the executor by key', async () => {
    const tools = new Registry<ToolRegistryEntry>('ToolRegistry');
    registerBuiltins(tools);
    const executor = new ToolExecutor(tools.keys().map((key) => tools.create(key)));
    const result = await executor.execute({
      id: 'c',
      name: 'calculator',
      arguments: '{"expression": "15 * 340 / 100"}',
    });
    expect(result).toMatchObject({ success: true, content: '51.0' });
  });
});

describe('registerBuiltinAgents', () => {
  it('registers every documented agent key, react as an alias, idempotently', () => {
    const agents = new Registry<AgentRegistryEntry>('AgentRegistry');
    registerBuiltinAgents(agents);
    registerBuiltinAgents(agents);
    expect(agents.keys()).toEqual([
      'simple',
      'orchestrator',
      'openclaw',
      'custom',
      'native_react',
      'react',
    ]);
    expect(agents.get('react')).toBe(NativeReActAgent);
  });

  it('creates a working agent by key', async () => {
    const agents = new Registry<AgentRegistryEntry>('AgentRegistry');
    registerBuiltinAgents(agents);
    const engine = new ScriptedEngine([assistantReply('Paris')]);
    const agent = agents.create('orchestrator', { engine, model: 'm' });
    expect(agent).toBeInstanceOf(OrchestratorAgent);
    expect((await agent.run('Capital of France?')).content).toBe('Paris');
    engine.assertAllStepsConsumed();
  });
});
