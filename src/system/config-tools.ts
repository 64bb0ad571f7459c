import { dirname, resolve } from 'node:path';
import type { Check } from './config-checks.js';
import { requiredUrlChecker, resolvePath } from './config-checks.js';
import type { TableReader } from './config-fields.js';
import type { PathContext } from './config-sections.js';
import type { McpConfig, McpServerConfig, ToolsConfig } from './config-types.js';

/** The `[tools.web_search] provider` values. */
export const WEB_SEARCH_PROVIDERS = ['duckduckgo', 'searxng', 'tavily', 'brave'] as const;

/** The `[tools.code_interpreter] backend` values. */
export const CODE_INTERPRETER_BACKENDS = ['auto', 'bwrap', 'pyodide'] as const;

const SERVER_NAME_RULE = {
  pattern: { regex: /^[A-Za-z0-9_-]+$/, description: 'a name of letters, digits, _ and -' },
  required: true,
} as const;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const PREFIX = /^[A-Za-z0-9_.-]*$/;
const DEFAULT_MCP_TIMEOUT_SECONDS = 60;

/** `[tools]`, `[tools.file_read]`, `[tools.web_search]` and `[tools.code_interpreter]`. */
export function readTools(root: TableReader, context: PathContext): ToolsConfig {
  const tools = root.table('tools');
  const fileRead = tools?.table('file_read');
  const webSearch = tools?.table('web_search');
  const interpreter = tools?.table('code_interpreter');
  tools?.ignore(['mcp'], '; list external MCP servers as [[mcp.servers]] instead');
  const allowedDirs = fileRead?.stringList('allowed_dirs', false) ?? defaultAllowedDirs(context);
  return {
    fileReadAllowedDirs: allowedDirs.map((dir) => resolvePath(dir, context.cwd, context.homeDir)),
    fileReadAllowSecretFiles: fileRead?.boolean('allow_secret_files') ?? false,
    webSearchProvider: webSearch?.text('provider', { oneOf: WEB_SEARCH_PROVIDERS }),
    webSearchBaseUrl: webSearch?.url('base_url'),
    codeInterpreter: {
      backend: interpreter?.text('backend', { oneOf: CODE_INTERPRETER_BACKENDS }) ?? 'auto',
      maxConcurrent: interpreter?.integer('max_concurrent', { min: 1 }) ?? 2,
      memoryMb: interpreter?.integer('memory_mb', { min: 1 }) ?? 512,
      allowUnsandboxed: interpreter?.boolean('allow_unsandboxed') ?? false,
    },
  };
}

/**
 * `file_read`'s folders when `allowed_dirs` is not set: the current directory, except the file-system root
 * (a runtime started in `/`, as services and containers often are, would otherwise expose the whole machine):
 * then none, and the tool says how to configure them.
 */
function defaultAllowedDirs(context: PathContext): string[] {
  const cwd = resolve(context.cwd);
  return dirname(cwd) === cwd ? [] : [context.cwd];
}

/** `[[mcp.servers]]`: each a stdio (`command`) or HTTP (`url`) server with a unique name. */
export function readMcp(root: TableReader): McpConfig {
  const servers = root.table('mcp')?.tables('servers') ?? [];
  const names = new Set<string>();
  const result: McpServerConfig[] = [];
  for (const server of servers) {
    const config = readMcpServer(server);
    if (config === undefined) continue;
    if (names.has(config.name)) {
      server.error('name', `duplicate MCP server name '${config.name}'; names must be unique`);
    }
    names.add(config.name);
    result.push(config);
  }
  return { servers: result };
}

/** One `[[mcp.servers]]` entry; undefined when it is invalid (the problems are recorded). */
function readMcpServer(server: TableReader): McpServerConfig | undefined {
  const name = server.text('name', SERVER_NAME_RULE);
  const command = server.text('command', { required: true });
  const url = server.read('url', requiredUrlChecker);
  const args = server.stringList('args', false);
  const env = server.stringMap('env', ENV_NAME, 'NAME');
  const headers = server.stringMap('headers', HEADER_NAME, 'Header-Name');
  const prefix = server.read('prefix', prefixChecker);
  const timeoutSeconds = server.number('timeout_seconds', { min: 0, exclusiveMin: true });
  if (!server.has('name')) {
    server.error(
      'name',
      'missing: every [[mcp.servers]] entry needs a name of letters, digits, _ and -',
    );
  }
  if (!checkTransport(server)) return undefined;
  if (name === undefined) return undefined;
  const common = {
    name,
    prefix: prefix ?? `${name}.`,
    timeoutMs: Math.round((timeoutSeconds ?? DEFAULT_MCP_TIMEOUT_SECONDS) * 1000),
  };
  if (command !== undefined) {
    return { ...common, transport: 'stdio', command, args: args ?? [], env: env ?? {} };
  }
  if (url !== undefined) return { ...common, transport: 'http', url, headers: headers ?? {} };
  return undefined;
}

/** Exactly one of `command` and `url`, and only the keys that go with it; false when something is wrong. */
function checkTransport(server: TableReader): boolean {
  const hasCommand = server.has('command');
  const hasUrl = server.has('url');
  if (hasCommand && hasUrl) {
    server.error('url', 'give either command (a local process) or url (an HTTP server), not both');
    return false;
  }
  if (!hasCommand && !hasUrl) {
    server.error(
      'command',
      'missing: give command = "program" (a local process) or url = "http://host/mcp" (an HTTP server)',
    );
    return false;
  }
  const misplaced = hasCommand ? ['headers'] : ['args', 'env'];
  for (const key of misplaced.filter((key) => server.has(key))) {
    server.error(key, `'${key}' applies only to ${hasCommand ? 'url' : 'command'} servers`);
  }
  return true;
}

/** A tool-name prefix: letters, digits, `_`, `-` and `.`; empty means no prefix. */
function prefixChecker(value: unknown): Check<string> {
  return typeof value === 'string' && PREFIX.test(value)
    ? { ok: true, value }
    : { ok: false, expected: 'a string of letters, digits, _, - and . (or "" for no prefix)' };
}
