import type { AgentCatalogEntry } from '../system/index.js';
import type { CliIo } from './cli-io.js';
import { jsonText, untrustedLine } from './cli-output.js';
import type { ListFlags } from './command-flags.js';
import { openJarvis } from './jarvis-options.js';
import { formatTable } from './table.js';

/** `jarvis agents list`: every registered agent key and its class; the default one and templates are marked. */
export async function runAgentsList(flags: ListFlags, io: CliIo): Promise<void> {
  const jarvis = await openJarvis(flags, io);
  try {
    const { agentCatalog } = await import('../system/index.js');
    const catalog = agentCatalog(await jarvis.system());
    io.stdout.write(flags.json === true ? agentsJson(catalog) : agentsTable(catalog));
  } finally {
    await jarvis.close();
  }
}

/**
 * True for an agent the catalog marks as a template (`custom`: a starting point to subclass, not an agent that
 * answers as it is). Read without a type so it works once the catalog carries the field.
 */
export function isTemplate(agent: AgentCatalogEntry): boolean {
  return (agent as { readonly template?: unknown }).template === true;
}

/** The agents as JSON with snake_case keys (`is_template` when the catalog says which are templates). */
export function agentsJson(catalog: readonly AgentCatalogEntry[]): string {
  const agents = catalog.map((agent) => ({
    key: agent.key,
    class_name: agent.className,
    is_default: agent.isDefault,
    ...('template' in agent ? { is_template: isTemplate(agent) } : {}),
  }));
  return jsonText(agents);
}

/** The agents as aligned columns. */
export function agentsTable(catalog: readonly AgentCatalogEntry[]): string {
  if (catalog.length === 0) return 'No agents are registered.\n';
  const rows = catalog.map((agent) => [
    untrustedLine(agent.key),
    untrustedLine(agent.className),
    [agent.isDefault ? 'default' : '', isTemplate(agent) ? '(template)' : '']
      .filter((mark) => mark !== '')
      .join(' '),
  ]);
  return formatTable(rows, { headers: ['KEY', 'CLASS', ''] });
}
