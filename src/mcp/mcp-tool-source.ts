import { describeError, JarvisError } from '../core/index.js';
import { McpConnection, type McpConnectionOptions } from './mcp-connection.js';
import type { McpServerConnectionOptions } from './mcp-connection-options.js';
import { buildMcpTools, type McpToolBatch, type McpWarning } from './mcp-remote-tools.js';
import type { McpTool } from './mcp-tool.js';

/** Options of an `McpToolSource`. */
export interface McpToolSourceOptions extends Omit<McpConnectionOptions, 'server'> {
  /** The configured servers (`[[mcp.servers]]`); names must be unique. */
  readonly servers: readonly McpServerConnectionOptions[];
}

/** Per-request options. */
export interface McpSourceRequestOptions {
  readonly signal?: AbortSignal;
}

/** Every tool of every reachable server; an unreachable server gives a warning instead. */
export type McpToolListing = McpToolBatch;

/** The tools found for requested names. */
export interface McpToolResolution extends McpToolBatch {
  /** Requested names no MCP server offers (not under any prefix, or missing on their server), in request order. */
  readonly unresolved: readonly string[];
}

/**
 * All configured MCP servers as one source of tools. Nothing connects until tools are asked for; `tools()`
 * connects only the servers whose prefix the requested names carry. `close()` closes every connection.
 */
export class McpToolSource {
  readonly connections: readonly McpConnection[];

  constructor(options: McpToolSourceOptions) {
    const { servers, ...shared } = options;
    checkUniqueNames(servers);
    this.connections = servers.map((server) => new McpConnection({ ...shared, server }));
  }

  /** Lists the tools of every server (connecting them all at once). */
  async listTools(options: McpSourceRequestOptions = {}): Promise<McpToolListing> {
    const batches = await Promise.all(this.connections.map((c) => listServer(c, options)));
    return mergeBatches(batches);
  }

  /** The server whose prefix `name` carries (the longest matching prefix), if any. */
  ownerOf(name: string): McpConnection | undefined {
    let owner: McpConnection | undefined;
    for (const connection of this.connections) {
      if (!name.startsWith(connection.prefix) || name === connection.prefix) continue;
      if (owner === undefined || connection.prefix.length > owner.prefix.length) owner = connection;
    }
    return owner;
  }

  /** Finds the tools named `<prefix><tool>`, connecting only the servers those names need. */
  async tools(
    names: readonly string[],
    options: McpSourceRequestOptions = {},
  ): Promise<McpToolResolution> {
    const wanted = new Map<McpConnection, string[]>();
    for (const name of new Set(names)) {
      const owner = this.ownerOf(name);
      if (owner !== undefined) wanted.set(owner, [...(wanted.get(owner) ?? []), name]);
    }
    const batches = await Promise.all(
      [...wanted].map(([connection, wantedNames]) =>
        pickFromServer(connection, wantedNames, options),
      ),
    );
    const merged = mergeBatches(batches);
    const found = new Set(merged.tools.map((tool) => tool.spec.name));
    const unresolved = [...new Set(names)].filter((name) => !found.has(name));
    return { ...merged, unresolved };
  }

  /** Closes every connection (stdio children are ended); calling it again is harmless. */
  async close(): Promise<void> {
    await Promise.all(this.connections.map((connection) => connection.close()));
  }
}

/** Builds a tool source over the configured servers (see `McpToolSource`). */
export function createMcpToolSource(
  servers: readonly McpServerConnectionOptions[],
  options: Omit<McpToolSourceOptions, 'servers'> = {},
): McpToolSource {
  return new McpToolSource({ ...options, servers });
}

async function listServer(
  connection: McpConnection,
  options: McpSourceRequestOptions,
): Promise<McpToolBatch> {
  try {
    return buildMcpTools(connection, await connection.listTools(options));
  } catch (error) {
    return { tools: [], warnings: [{ server: connection.name, message: describeError(error) }] };
  }
}

async function pickFromServer(
  connection: McpConnection,
  names: readonly string[],
  options: McpSourceRequestOptions,
): Promise<McpToolBatch> {
  let batch: McpToolBatch;
  try {
    batch = buildMcpTools(connection, await connection.listTools(options));
  } catch (error) {
    return { tools: [], warnings: [{ server: connection.name, message: describeError(error) }] };
  }
  const byName = new Map(batch.tools.map((tool) => [tool.spec.name, tool]));
  const tools = names.flatMap((name) => byName.get(name) ?? []);
  const missing = names.filter((name) => !byName.has(name));
  if (missing.length === 0) return { tools, warnings: batch.warnings };
  const available = byName.size === 0 ? 'none' : [...byName.keys()].join(', ');
  const quoted = missing.map((name) => `'${name}'`).join(', ');
  const message = `MCP server '${connection.name}' has no tool ${quoted} (available: ${available})`;
  return { tools, warnings: [...batch.warnings, { server: connection.name, message }] };
}

function mergeBatches(batches: readonly McpToolBatch[]): McpToolBatch {
  const tools: McpTool[] = [];
  const warnings: McpWarning[] = batches.flatMap((batch) => batch.warnings);
  const seen = new Set<string>();
  for (const tool of batches.flatMap((batch) => batch.tools)) {
    if (seen.has(tool.spec.name)) {
      warnings.push({
        server: tool.server,
        message: `MCP tool '${tool.spec.name}' of server '${tool.server}' is skipped: another server already offers that name; give one server a different prefix`,
      });
      continue;
    }
    seen.add(tool.spec.name);
    tools.push(tool);
  }
  return { tools, warnings };
}

function checkUniqueNames(servers: readonly McpServerConnectionOptions[]): void {
  const seen = new Set<string>();
  for (const server of servers) {
    if (seen.has(server.name)) {
      throw new JarvisError({
        code: 'invalid_mcp_server',
        message: `Two MCP servers are named '${server.name}'; server names must be unique`,
      });
    }
    seen.add(server.name);
  }
}
