import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NativeReActAgent, OrchestratorAgent } from '../agents/index.js';
import {
  type AgentRegistryEntry,
  createRegistries,
  EventBus,
  Registry,
  type ToolRegistryEntry,
} from '../core/index.js';
import { SQLiteMemory } from '../memory/index.js';
import { assistantReply, ScriptedEngine } from '../testing/index.js';
import { CalculatorTool, CodeInterpreterTool, ThinkTool, ToolExecutor } from '../tools/index.js';
import {
  BUILTIN_AGENTS,
  BUILTIN_ENGINE_ENTRIES,
  BUILTIN_MEMORY_BACKENDS,
  BUILTIN_TOOLS,
  registerAllBuiltins,
  registerBuiltinAgents,
  registerBuiltins,
  registerBuiltinTools,
} from './builtins.js';
import { configFromToml } from './config/index.js';
import type { SystemRegistries } from './system.js';
import { BUILTIN_AGENT_ENTRIES } from './system-agents.js';
import { BUILTIN_MEMORY_ENTRIES } from './system-memory.js';
import { BUILTIN_TOOL_ENTRIES, type ToolDependencies } from './system-tools.js';

describe('registerBuiltinTools', () => {
  it('registers the built-in tools under their keys, idempotently', () => {
    const tools = new Registry<ToolRegistryEntry>('ToolRegistry');
    registerBuiltinTools(tools);
    registerBuiltinTools(tools);
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
    registerBuiltinTools(tools);
    expect(tools.get('calculator')).toBe(mine);
    expect(tools.keys()[0]).toBe('calculator');
  });

  it('gives scheduler tools that say the scheduler is unavailable until one is injected', async () => {
    const tools = new Registry<ToolRegistryEntry>('ToolRegistry');
    registerBuiltinTools(tools);
    const result = await tools.create('list_scheduled_tasks').execute({});
    expect(result.success).toBe(false);
    expect(result.content).toContain('scheduler is unavailable');
  });

  it('gives tools that work through the executor by key', async () => {
    const tools = new Registry<ToolRegistryEntry>('ToolRegistry');
    registerBuiltinTools(tools);
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

function emptyRegistries(): SystemRegistries {
  return createRegistries();
}

describe('the tables of built-ins', () => {
  it('builds every built-in tool as an instance of its registered class', () => {
    const { config } = configFromToml('', join(tmpdir(), 'c.toml'), {
      home: tmpdir(),
      cwd: tmpdir(),
      homeDir: tmpdir(),
    });
    const deps: ToolDependencies = {
      config,
      env: {},
      codeInterpreter: () => new CodeInterpreterTool(),
    };
    for (const entry of BUILTIN_TOOL_ENTRIES) {
      const tool = entry.build(deps);
      expect([entry.key, tool]).toEqual([entry.key, expect.any(entry.class)]);
      expect(tool.spec.name).toBe(entry.key);
    }
  });

  it('builds every built-in agent as an instance of its registered class', () => {
    const engine = new ScriptedEngine([]);
    const options = { engine, model: 'm', tools: [], bus: new EventBus() };
    for (const entry of BUILTIN_AGENT_ENTRIES) {
      const settings = { ...options, temperature: 0, maxTokens: 10, maxTurns: 2 };
      expect([entry.key, entry.build(settings)]).toEqual([entry.key, expect.any(entry.class)]);
    }
  });

  it('registers every kind in one call, engines as factories that make their engine', async () => {
    const registries = emptyRegistries();
    registerAllBuiltins(registries);
    registerAllBuiltins(registries);
    expect(registries.tools.keys()).toEqual(BUILTIN_TOOL_ENTRIES.map((entry) => entry.key));
    expect(registries.agents.keys()).toEqual(BUILTIN_AGENT_ENTRIES.map((entry) => entry.key));
    expect(registries.engines.keys()).toEqual(BUILTIN_ENGINE_ENTRIES.map((entry) => entry.key));
    expect(registries.memory.items()).toEqual([['sqlite', SQLiteMemory]]);
    const engine = await registries.engines.create('vllm', { baseUrl: 'http://127.0.0.1:9/v1' });
    expect(engine.engineId).toBe('vllm');
    await engine.close();
  });

  it('keeps the deprecated names as views of the tables', () => {
    expect(registerBuiltins).toBe(registerBuiltinTools);
    const pairs = (table: readonly { key: string; class: unknown }[]) =>
      table.map((entry) => [entry.key, entry.class]);
    expect(BUILTIN_TOOLS).toEqual(pairs(BUILTIN_TOOL_ENTRIES));
    expect(BUILTIN_AGENTS).toEqual(pairs(BUILTIN_AGENT_ENTRIES));
    expect(BUILTIN_MEMORY_BACKENDS).toEqual(pairs(BUILTIN_MEMORY_ENTRIES));
  });
});
