import type { AgentCatalogEntry } from '../sdk/index.js';
import type { CliIo } from './cli-io.js';
import { openJarvis } from './jarvis-options.js';
import { formatTable } from './table.js';
import type { ListFlags } from './tools-command.js';

/** `jarvis agents list`: every registered agent key and its class; the default one is marked. */
export async function runAgentsList(flags: ListFlags, io: CliIo): Promise<void> {
  const jarvis = await openJarvis(flags, io);
  try {
    const { agentCatalog } = await import('../sdk/index.js');
    const catalog = agentCatalog(await jarvis.system());
    io.stdout.write(flags.json === true ? agentsJson(catalog) : agentsTable(catalog));
  } finally {
    await jarvis.close();
  }
}

/** The agents as JSON with snake_case keys. */
export function agentsJson(catalog: readonly AgentCatalogEntry[]): string {
  const agents = catalog.map((agent) => ({
    key: agent.key,
    class_name: agent.className,
    is_default: agent.isDefault,
  }));
  return `${JSON.stringify(agents, null, 2)}\n`;
}

/** The agents as aligned columns. */
export function agentsTable(catalog: readonly AgentCatalogEntry[]): string {
  if (catalog.length === 0) return 'No agents are registered.\n';
  const rows = catalog.map((agent) => [
    agent.key,
    agent.className,
    agent.isDefault ? 'default' : '',
  ]);
  return formatTable(rows, { headers: ['KEY', 'CLASS', ''] });
}
