import { JarvisError } from '../core/index.js';
import type { Jarvis } from '../sdk/index.js';
import type { StartJarvisServerOptions } from '../server/index.js';
import type { JarvisSystem } from '../system/index.js';
import { CliExit, ExitCode, InterruptedError } from './cli-error.js';
import type { CliIo } from './cli-io.js';
import { diagnosticText } from './cli-output.js';
import { openJarvis } from './jarvis-options.js';
import { untilAborted } from './scheduler-start.js';
import type { ServeFlags } from './serve-command.js';

/**
 * `jarvis serve`: opens the SDK, checks the engine, agent and tools, listens, prints the address on stderr, and
 * serves until SIGINT/SIGTERM; then closes the server and the system and exits 130/143.
 */
export async function runServe(flags: ServeFlags, io: CliIo): Promise<void> {
  const apiKey = apiKeyOf(flags, io);
  const { isLoopbackHost, startJarvisServer } = await import('../server/index.js');
  const host = flags.host ?? '127.0.0.1';
  if (!isLoopbackHost(host) && apiKey === undefined) {
    throw new JarvisError({
      code: 'invalid_argument',
      message: `Refusing to listen on ${host} without an API key: anyone who can reach it could run the agent and its tools. Pass --api-key (or set OPENJARVIS_API_KEY), or leave out --host to listen on 127.0.0.1`,
    });
  }
  const jarvis = await openJarvis(flags, io, flags.yes === true ? { confirm: () => true } : {});
  try {
    const system = await jarvis.system();
    const described = await checkRun(system, flags, io);
    const server = await startJarvisServer(serverOptions(system, flags, host, apiKey, io));
    io.stderr.write(
      `Serving ${described} at ${server.url}/v1 (OpenAI-compatible${apiKey === undefined ? '' : ', API key required'}). Press Ctrl-C to stop.\n` +
        `Web page: ${server.url}/\n`,
    );
    await untilAborted(io.signal);
    await server.close();
  } finally {
    await closeQuietly(jarvis, io);
  }
  const reason: unknown = io.signal.reason;
  throw new CliExit(reason instanceof InterruptedError ? reason.exitCode : ExitCode.interrupted);
}

/** `--api-key`, else `OPENJARVIS_API_KEY`; an empty value counts as none. */
function apiKeyOf(flags: ServeFlags, io: CliIo): string | undefined {
  const key = flags.apiKey ?? io.env.OPENJARVIS_API_KEY;
  return key === undefined || key.trim() === '' ? undefined : key.trim();
}

/** Resolves the engine and builds the agent and tools once, so mistakes show now and not at the first request. */
async function checkRun(system: JarvisSystem, flags: ServeFlags, io: CliIo): Promise<string> {
  const run = await system.prepare('check', {
    agent: flags.agent,
    tools: flags.tools,
    context: false,
    signal: io.signal,
  });
  const tools = run.tools.map((tool) => tool.spec.name);
  const withTools = tools.length === 0 ? '' : ` with ${tools.join(', ')}`;
  return `model ${run.engine.model} (engine ${run.engine.key}, agent ${run.agentName}${withTools})`;
}

function serverOptions(
  system: JarvisSystem,
  flags: ServeFlags,
  host: string,
  apiKey: string | undefined,
  io: CliIo,
): StartJarvisServerOptions {
  return {
    system,
    host,
    port: flags.port,
    apiKey,
    agent: flags.agent,
    tools: flags.tools,
    maxConcurrentRuns: flags.maxConcurrent,
    requestTimeoutMs: flags.timeout === undefined ? undefined : flags.timeout * 1000,
    maxBodyBytes: flags.maxBodyBytes,
    corsOrigins: flags.cors,
    log: (line) =>
      io.stderr.write(`${diagnosticText(system.redact(line), io.session?.redactor)}\n`),
  };
}

async function closeQuietly(jarvis: Jarvis, io: CliIo): Promise<void> {
  try {
    await jarvis.close();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    io.stderr.write(`warning: closing failed: ${diagnosticText(message, io.session?.redactor)}\n`);
  }
}
