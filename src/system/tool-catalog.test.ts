import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type AgentRegistryEntry,
  createToolSpec,
  Registry,
  type Tool,
  type ToolRegistryEntry,
} from '../core/index.js';
import { BaseTool } from '../tools/index.js';
import { configFromToml } from './config/index.js';
import { buildSystem } from './system.js';
import { BUILTIN_TOOL_ENTRIES } from './system-tools.js';
import { agentCatalog, toolCatalog } from './tool-catalog.js';

class PricedTool extends BaseTool {
  readonly toolId = 'priced';
  readonly spec = createToolSpec({
    name: 'priced',
    description: 'Costs money.\nSecond line.',
    category: 'custom',
    costEstimate: 0.25,
    latencyEstimate: 3,
    requiresConfirmation: true,
  });
  override async execute() {
    return this.success('ok');
  }
}

class NeedsArguments extends BaseTool {
  readonly toolId = 'needs_arguments';
  readonly spec = createToolSpec({ name: 'needs_arguments', description: 'x' });
  constructor(options: { readonly key: string }) {
    super();
    if (options.key === '') throw new Error('key missing');
  }
  override async execute() {
    return this.success('ok');
  }
}

let home: string;

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'jarvis-catalog-'));
});

afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

function systemWith(
  tools: Registry<ToolRegistryEntry>,
  agents = new Registry<AgentRegistryEntry>('A'),
) {
  const { config } = configFromToml(
    '[agent]\ndefault_agent = "orchestrator"\n',
    join(home, 'c.toml'),
    {
      home,
      cwd: home,
      homeDir: home,
    },
  );
  return buildSystem({
    config,
    registries: { tools, agents, engines: new Registry('E'), memory: new Registry('M') },
  });
}

describe('toolCatalog', () => {
  it('lists every built-in from its spec without opening a database', async () => {
    const system = systemWith(new Registry('T'));
    const catalog = toolCatalog(system, { env: {} });
    expect(catalog.map((tool) => tool.name)).toEqual(
      BUILTIN_TOOL_ENTRIES.map((entry) => entry.key).sort(),
    );
    expect(catalog.find((tool) => tool.name === 'calculator')).toMatchObject({
      category: 'math',
      requiresConfirmation: false,
      costEstimate: 0,
    });
    expect(catalog.every((tool) => tool.problem === undefined && tool.description !== '')).toBe(
      true,
    );
    await system.close();
    expect(await readdir(home)).toEqual([]);
  });

  it('shows custom tools with their estimates, and says which could not be built', () => {
    const tools = new Registry<ToolRegistryEntry>('T');
    tools.registerValue('priced', PricedTool);
    tools.registerValue('needs_arguments', NeedsArguments as unknown as ToolRegistryEntry);
    const instance: Tool = new PricedTool();
    tools.registerValue('an_instance', instance as unknown as ToolRegistryEntry);
    const catalog = toolCatalog(systemWith(tools), { env: {} });
    expect(catalog.find((tool) => tool.name === 'priced')).toMatchObject({
      category: 'custom',
      description: 'Costs money.\nSecond line.',
      requiresConfirmation: true,
      costEstimate: 0.25,
      latencyEstimate: 3,
    });
    expect(catalog.find((tool) => tool.name === 'an_instance')?.requiresConfirmation).toBe(true);
    expect(catalog.find((tool) => tool.name === 'needs_arguments')?.problem).toMatch(
      /^could not be built: /,
    );
  });
});

describe('agentCatalog', () => {
  it('lists keys with class names, marking the configured default', () => {
    const catalog = agentCatalog(systemWith(new Registry('T')));
    expect(catalog.find((agent) => agent.key === 'orchestrator')).toEqual({
      key: 'orchestrator',
      className: 'OrchestratorAgent',
      isDefault: true,
      template: false,
    });
    expect(catalog.find((agent) => agent.key === 'react')?.className).toBe('NativeReActAgent');
    expect(catalog.filter((agent) => agent.isDefault)).toHaveLength(1);
    expect(catalog.map((agent) => agent.key)).toEqual(
      [...catalog.map((agent) => agent.key)].sort(),
    );
  });

  it('marks custom as a template that cannot be run by name', () => {
    const catalog = agentCatalog(systemWith(new Registry('T')));
    expect(catalog.find((agent) => agent.key === 'custom')).toEqual({
      key: 'custom',
      className: 'CustomAgent',
      isDefault: false,
      template: true,
      description: 'template: subclass CustomAgent in code; not runnable by name',
    });
    expect(catalog.filter((agent) => agent.template).map((agent) => agent.key)).toEqual(['custom']);
  });

  it('names factories and instances too', () => {
    const agents = new Registry<AgentRegistryEntry>('A');
    agents.registerValue('made', function makeAgent() {
      return {} as never;
    });
    agents.registerValue('instance', new (class EchoAgent {})() as never);
    const catalog = agentCatalog(systemWith(new Registry('T'), agents));
    expect(catalog.find((agent) => agent.key === 'made')?.className).toBe('makeAgent');
    expect(catalog.find((agent) => agent.key === 'instance')?.className).toBe('EchoAgent');
  });
});
