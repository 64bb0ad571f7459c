import { mcpToolCatalog, type ToolCatalogEntry, toolCatalog, toolJson } from '../system/index.js';
import type { CliIo } from './cli-io.js';
import { diagnosticText, listText } from './cli-output.js';
import type { ListFlags } from './command-flags.js';
import { firstLine, formatTable, outputWidth } from './table.js';
import { openToolListing, type ToolListing } from './tool-listing.js';

/**
 * `jarvis tools list`: every registered tool, built without opening a database or probing an engine (and
 * without loading any engine, agent or store module: see `openToolListing`).
 */
export async function runToolsList(flags: ListFlags, io: CliIo): Promise<void> {
  const listing = await openToolListing(flags, io);
  try {
    const local = toolCatalog(listing, { env: io.env });
    const catalog = [...local, ...(await mcpCatalog(listing, io))];
    io.stdout.write(flags.json === true ? toolsJson(catalog) : toolsTable(catalog, io));
  } finally {
    await listing.close();
  }
}

/** The tools of the configured MCP servers (connecting them); a server that fails is a warning on stderr. */
async function mcpCatalog(listing: ToolListing, io: CliIo): Promise<readonly ToolCatalogEntry[]> {
  const { entries, warnings } = await mcpToolCatalog(listing, io.signal);
  for (const warning of warnings) {
    const text = `MCP server '${warning.server}': ${warning.message}`;
    io.stderr.write(`warning: ${diagnosticText(text, io.session?.redactor)}\n`);
  }
  return entries;
}

/** The catalog as JSON with snake_case keys (the same objects as the server's /api/tools). */
export function toolsJson(catalog: readonly ToolCatalogEntry[]): string {
  return `${JSON.stringify(catalog.map(toolJson), null, 2)}\n`;
}

/**
 * The catalog as aligned columns; descriptions keep their first line, cut to the terminal width on a TTY
 * (where names and descriptions, which MCP servers supply, show escapes visibly).
 */
export function toolsTable(catalog: readonly ToolCatalogEntry[], io: CliIo): string {
  if (catalog.length === 0) return 'No tools are registered.\n';
  const rows = catalog.map((tool) => [
    listText(tool.name, io.stdout),
    listText(tool.category || '-', io.stdout),
    tool.requiresConfirmation ? 'yes' : 'no',
    formatCost(tool.costEstimate),
    formatLatency(tool.latencyEstimate),
    listText(tool.problem ?? firstLine(tool.description), io.stdout),
  ]);
  const width = outputWidth(io.stdout);
  return formatTable(rows, {
    headers: ['NAME', 'CATEGORY', 'CONFIRM', 'COST', 'LATENCY', 'DESCRIPTION'],
    ...(width === undefined ? {} : { maxWidth: width }),
  });
}

/** `$0`, `$0.002`, `$1.50`: an estimate in US dollars per call. */
export function formatCost(costUsd: number): string {
  if (!Number.isFinite(costUsd) || costUsd < 0) return '?';
  if (costUsd === 0) return '$0';
  if (costUsd < 0.0001) return '<$0.0001';
  if (costUsd >= 1) return `$${costUsd.toFixed(2)}`;
  return `$${Number(costUsd.toPrecision(2))}`;
}

/** `-` when unknown (0), else seconds: `0.5s`, `2s`. */
export function formatLatency(latencySeconds: number): string {
  if (!Number.isFinite(latencySeconds) || latencySeconds < 0) return '?';
  if (latencySeconds === 0) return '-';
  return `${Number(latencySeconds.toPrecision(2))}s`;
}
