import { describe, expect, it } from 'vitest';
import type { AgentCatalogEntry } from '../system/index.js';
import { agentsJson, agentsTable } from './agents-action.js';

const CATALOG: readonly AgentCatalogEntry[] = [
  { key: 'custom', className: 'CustomAgent', isDefault: false, template: true },
  { key: 'orchestrator', className: 'OrchestratorAgent', isDefault: false, template: false },
  { key: 'simple', className: 'SimpleAgent', isDefault: true, template: false },
];

describe('agents list', () => {
  it('marks templates and the default agent', () => {
    const rows = agentsTable(CATALOG).trimEnd().split('\n');
    expect(rows).toContainEqual(expect.stringMatching(/^custom\s+CustomAgent\s+\(template\)$/));
    expect(rows).toContainEqual(expect.stringMatching(/^orchestrator\s+OrchestratorAgent$/));
    expect(rows).toContainEqual(expect.stringMatching(/^simple\s+SimpleAgent\s+default$/));
  });

  it('says which agents are templates in JSON', () => {
    const agents = JSON.parse(agentsJson(CATALOG)) as Record<string, unknown>[];
    expect(agents[0]).toEqual({
      key: 'custom',
      class_name: 'CustomAgent',
      is_default: false,
      is_template: true,
    });
    expect(agents[2]).toMatchObject({ key: 'simple', is_default: true, is_template: false });
  });
});
