import {
  AgentRegistry,
  createRedactor,
  EngineRegistry,
  MemoryRegistry,
  type Redactor,
  ToolRegistry,
} from '../core/index.js';
import type { McpToolListing, McpToolSource } from '../mcp/index.js';
import {
  configSecrets,
  importModules,
  type JarvisConfig,
  type JarvisSystem,
  loadConfig,
  registerBuiltinTools,
} from '../system/index.js';
import type { CliIo } from './cli-io.js';
import { diagnosticText } from './cli-output.js';
import type { JarvisFlags } from './jarvis-options.js';

/**
 * What `jarvis tools list` reads: the config, the tool registry (built-ins and the tools of `--import` and
 * config `imports` modules), the config's redactor and its MCP servers. Unlike `openJarvis` it builds no
 * system, so no engine, agent, store, scheduler or telemetry module is loaded.
 */
export interface ToolListing extends Pick<JarvisSystem, 'config' | 'registries'> {
  readonly redact: Redactor;
  /** Every tool of every configured MCP server (connecting them); unreachable servers come back as warnings. */
  mcpTools(signal?: AbortSignal): Promise<McpToolListing>;
  /** Closes the MCP connections, if any were opened. */
  close(): Promise<void>;
}

/**
 * Reads the config of the flags as `openJarvis` does (same errors; its warnings on stderr, redacted), imports
 * the modules that register tools and registers the built-in tools.
 */
export async function openToolListing(flags: JarvisFlags, io: CliIo): Promise<ToolListing> {
  const loaded = await loadConfig({
    env: io.env,
    cwd: io.cwd,
    ...(flags.config === undefined ? {} : { configPath: flags.config }),
  });
  const config = loaded.config;
  await importModules([...config.imports, ...(flags.import ?? [])], io.cwd);
  registerBuiltinTools(ToolRegistry);
  const redact = createRedactor(configSecrets(config, io.env));
  io.session?.useRedactor(redact);
  for (const warning of loaded.warnings) {
    const where = warning.line === undefined ? warning.file : `${warning.file}:${warning.line}`;
    const text = diagnosticText(`${where}: ${warning.message}`, io.session?.redactor);
    io.stderr.write(`warning: ${text}\n`);
  }
  return listingOf(config, redact);
}

function listingOf(config: JarvisConfig, redact: Redactor): ToolListing {
  let source: Promise<McpToolSource> | undefined;
  return {
    config,
    redact,
    registries: {
      tools: ToolRegistry,
      agents: AgentRegistry,
      engines: EngineRegistry,
      memory: MemoryRegistry,
    },
    async mcpTools(signal) {
      if (config.mcp.servers.length === 0) return { tools: [], warnings: [] };
      source ??= import('../mcp/index.js').then(({ createMcpToolSource }) =>
        createMcpToolSource(config.mcp.servers),
      );
      return (await source).listTools(signal === undefined ? {} : { signal });
    },
    async close() {
      await (await source?.catch(() => undefined))?.close();
    },
  };
}
