import type { EngineStatus } from '../system/index.js';
import { UsageError } from './cli-error.js';
import type { CliIo } from './cli-io.js';
import { listText, untrustedLine } from './cli-output.js';
import type { EnginesFlags } from './command-flags.js';
import { openJarvis } from './jarvis-options.js';
import { formatTable, outputWidth } from './table.js';

/** `jarvis engines`: every built-in engine (or `--engine`), probed in parallel. */
export async function runEngines(flags: EnginesFlags, io: CliIo): Promise<void> {
  const sdk = await import('../system/index.js');
  requireKnownEngine(flags.engine, sdk.ENGINE_KEYS);
  const jarvis = await openJarvis(configFlags(flags), io);
  try {
    const engines = await sdk.surveyEngines({
      config: (await jarvis.system()).config,
      baseUrl: flags.baseUrl,
      engineKey: flags.engine,
      ...(flags.engine === undefined ? {} : { keys: [flags.engine] }),
      timeoutMs: flags.timeoutMs,
      signal: io.signal,
    });
    if (flags.json === true) {
      io.stdout.write(`${JSON.stringify(engines.map(engineJson), null, 2)}\n`);
      return;
    }
    io.stdout.write(enginesTable(engines, io));
    if (!engines.some((engine) => engine.reachable)) io.stderr.write(NO_ENGINE_ADVICE);
  } finally {
    await jarvis.close();
  }
}

const NO_ENGINE_ADVICE =
  'No engine answered. Start one, e.g. `ollama serve` (then `ollama pull qwen3:8b`), `vllm serve <model>`\n' +
  'or `llama-server -m model.gguf --port 8080`; or point to a server with --base-url <url>.\n';

/** An `--engine` that is not a built-in key is a usage error listing the keys. */
function requireKnownEngine(key: string | undefined, known: readonly string[]): void {
  if (key !== undefined && !known.includes(key))
    throw new UsageError(`Unknown engine '${key}'. Available: ${known.join(', ')}`);
}

/** Only the flags that load the config: the engine flags are the survey's, not the SDK's engine choice. */
function configFlags(flags: EnginesFlags): EnginesFlags {
  return {
    timeoutMs: flags.timeoutMs,
    ...(flags.config === undefined ? {} : { config: flags.config }),
    ...(flags.import === undefined ? {} : { import: flags.import }),
  };
}

/** One engine as JSON with snake_case keys. */
export function engineJson(engine: EngineStatus): Record<string, unknown> {
  return {
    key: engine.key,
    address: engine.address,
    configured: engine.configured,
    reachable: engine.reachable,
    models: engine.models,
    ...(engine.problem === undefined ? {} : { problem: engine.problem }),
  };
}

/**
 * The engines as aligned columns: key, address, status, models (or why there are none); on a terminal the
 * servers' model names and problems show escapes visibly.
 */
export function enginesTable(engines: readonly EngineStatus[], io: CliIo): string {
  const rows = engines.map((engine) => [
    engine.key,
    listText(engine.address, io.stdout),
    engineState(engine),
    listText(
      engine.models.length > 0 ? engine.models.join(', ') : (engine.problem ?? '-'),
      io.stdout,
    ),
  ]);
  const width = outputWidth(io.stdout);
  return formatTable(rows, {
    headers: ['ENGINE', 'ADDRESS', 'STATUS', 'MODELS'],
    ...(width === undefined ? {} : { maxWidth: width }),
  });
}

function engineState(engine: EngineStatus): string {
  if (!engine.configured) return 'not configured';
  if (engine.key === 'embedded') return engine.reachable ? 'model found' : 'no model';
  return engine.reachable ? 'reachable' : 'unreachable';
}

/** `jarvis models`: the models of the engine a question would use (flags, config, then discovery). */
export async function runModels(flags: EnginesFlags, io: CliIo): Promise<void> {
  const { ENGINE_KEYS, listEngineModels } = await import('../system/index.js');
  requireKnownEngine(flags.engine, ENGINE_KEYS);
  const jarvis = await openJarvis(configFlags(flags), io);
  try {
    const found = await listEngineModels({
      config: (await jarvis.system()).config,
      engineKey: flags.engine,
      baseUrl: flags.baseUrl,
      discoveryTimeoutMs: flags.timeoutMs,
      signal: io.signal,
    });
    if (flags.json === true) {
      const json = { engine: found.engine, address: found.address, models: found.models };
      io.stdout.write(`${JSON.stringify(json, null, 2)}\n`);
      return;
    }
    io.stderr.write(`Models of ${found.engine} at ${untrustedLine(found.address)}:\n`);
    for (const model of found.models) io.stdout.write(`${listText(model, io.stdout)}\n`);
    if (found.models.length === 0)
      io.stderr.write(
        `The '${found.engine}' engine has no models: pull or load one (for Ollama: \`ollama pull qwen3:8b\`).\n`,
      );
  } finally {
    await jarvis.close();
  }
}
