import { Writable } from 'node:stream';
import type { Tool } from '../core/index.js';
import { createMcpServer, type JarvisMcpServer, serveHttp, serveStdio } from '../mcp/index.js';
import type { JarvisSystem } from '../system/index.js';
import type { CliIo } from './cli-io.js';
import type { McpServeFlags } from './command-flags.js';
import { openJarvis } from './jarvis-options.js';
import { packageVersion } from './package-version.js';
import { untilAborted } from './scheduler-start.js';

/** Built-in tools that call the model, so serving them needs an engine. */
const ENGINE_TOOLS: ReadonlySet<string> = new Set(['llm']);

/** The first line of an error's message without its closing colon (discovery explains itself over lines). */
function firstLine(error: unknown): string {
  const line = (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
  return line.replace(/[.:]\s*$/, '');
}

/**
 * The tools to serve: the named ones (an engine is resolved only when one of them needs it), or every
 * registered tool, leaving out `llm` with a warning when no engine can be found.
 */
export async function servedTools(
  system: JarvisSystem,
  flags: McpServeFlags,
  io: CliIo,
): Promise<readonly Tool[]> {
  if (flags.tools !== undefined) {
    const needsEngine = flags.tools.some((name) => ENGINE_TOOLS.has(name));
    return system.buildTools(flags.tools, needsEngine ? await system.engine(io.signal) : undefined);
  }
  const names = system.toolNames();
  if (!names.some((name) => ENGINE_TOOLS.has(name))) return system.buildTools(names);
  try {
    return await system.buildTools(names, await system.engine(io.signal));
  } catch (error) {
    io.stderr.write(
      `warning: not serving ${[...ENGINE_TOOLS].join(', ')}: no engine (${firstLine(error)}); pass --engine, --model or --base-url to serve it\n`,
    );
    return system.buildTools(names.filter((name) => !ENGINE_TOOLS.has(name)));
  }
}

/** Says which tools will be refused because they need a person's approval. */
function confirmationNote(tools: readonly Tool[], allowed: boolean): string {
  const guarded = tools
    .filter((tool) => tool.spec.requiresConfirmation)
    .map((tool) => tool.spec.name);
  if (guarded.length === 0 || allowed) return '';
  return `note: ${guarded.join(', ')} require confirmation, so calls to them are refused; restart with --allow-confirmation to allow them\n`;
}

/** A writable that hands what the MCP transport writes to the CLI's stdout (the protocol channel). */
function protocolStdout(io: CliIo): Writable {
  return new Writable({
    decodeStrings: false,
    write(chunk: unknown, _encoding, callback) {
      io.stdout.write(typeof chunk === 'string' ? chunk : String(chunk));
      callback();
    },
  });
}

async function serveOverStdio(server: JarvisMcpServer, summary: string, io: CliIo): Promise<void> {
  const handle = await serveStdio(server, { stdin: io.stdin, stdout: protocolStdout(io) });
  io.stderr.write(
    `Serving ${summary} over MCP on stdio (a client talks on stdin/stdout; Ctrl-C stops).\n`,
  );
  await untilAborted(io.signal, handle.closed);
  await handle.close();
}

async function serveOverHttp(
  server: JarvisMcpServer,
  port: number,
  summary: string,
  io: CliIo,
): Promise<void> {
  const handle = await serveHttp(server, { port });
  io.stderr.write(`Serving ${summary} over MCP at ${handle.url} (Ctrl-C stops).\n`);
  await untilAborted(io.signal);
  io.stderr.write('Stopping.\n');
  await handle.close();
}

/**
 * `jarvis mcp serve`: offers tools to MCP clients over stdio (nothing but the protocol on stdout) or Streamable
 * HTTP on 127.0.0.1, until the client leaves (stdio) or SIGINT/SIGTERM.
 */
export async function runMcpServe(flags: McpServeFlags, io: CliIo): Promise<void> {
  const jarvis = await openJarvis(flags, io);
  try {
    const system = await jarvis.system();
    const tools = await servedTools(system, flags, io);
    const allowed = flags.allowConfirmation === true;
    const server = createMcpServer(tools, {
      bus: system.bus,
      allowConfirmation: allowed,
      version: packageVersion(),
    });
    io.stderr.write(confirmationNote(tools, allowed));
    const summary = `${tools.length} tool(s) [${tools.map((tool) => tool.spec.name).join(', ')}]`;
    try {
      if (flags.http === undefined) await serveOverStdio(server, summary, io);
      else await serveOverHttp(server, flags.http, summary, io);
    } finally {
      await server.close();
    }
  } finally {
    await jarvis.close();
  }
}
