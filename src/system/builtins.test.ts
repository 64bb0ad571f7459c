import { describe, expect, it } from 'vitest';
import { NativeReActAgent, OrchestratorAgent } from '../agents/index.js';
import { type AgentRegistryEntry, Registry, type ToolRegistryEntry } from '../core/index.js';
import { assistantReply, ScriptedEngine } from '../testing/index.js';
import { CalculatorTool, ThinkTool, ToolExecutor } from '../tools/index.js';
import { registerBuiltinAgents, registerBuiltins } from './builtins.js';

describe('registerBuiltins', () => {
  it('registers the built-in tools under their keys, idempotently', () => {
    const tools = new Registry<ToolRegistryEntry>('ToolRegistry');
    registerBuiltins(tools);
    registerBuiltins(tools);
    expect(tools.keys()).toEqual([
      'calculator',
      'think',
      'retrieval',
      'llm',
      'file_read',
      'web_search',
      'code_interpreter',
      'schedule_task',
      'list_scheduled_tasks',
      'pause_scheduled_task',
      'resume_scheduled_task',
      'cancel_scheduled_task',
    ]);
    expect(tools.create('calculator')).toBeInstanceOf(CalculatorTool);
    expect(tools.create('think')).toBeInstanceOf(ThinkTool);
  });

  it('keeps a tool the user registered under a built-in key', () => {
    const tools = new Registry<ToolRegistryEntry>('ToolRegistry');
    const mine = () => new ThinkTool();
    tools.registerValue('calculator', mine);
    registerBuiltins(tools);
    expect(tools.get('calculator')).toBe(mine);
    expect(tools.keys()[0]).toBe('calculator');
  });

  it('gives scheduler tools that say the scheduler is unavailable until one is injected', async () => {
    const tools = new Registry<ToolRegistryEntry>('ToolRegistry');
    registerBuiltins(tools);
    const result = await tools.create('list_scheduled_tasks').execute({});
    expect(result.success).toBe(false);
    expect(result.content).toContain('scheduler is unavailable');
  });

  it('gives tools that work through the executor by key', async () => {
    const tools = new Registry<ToolRegistryEntry>('ToolRegistry');
    registerBuiltins(tools);
    const executor = new ToolExecutor(['calculator', 'think'].map((key) => tools.create(key)));
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
      'native_openhands',
      'rlm',
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
