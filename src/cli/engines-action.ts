import { describeError } from '../core/index.js';
import type { LocalModel } from '../engine/index.js';
import type { EngineModels, EngineStatus } from '../system/index.js';
import { UsageError } from './cli-error.js';
import type { CliIo } from './cli-io.js';
import { diagnosticText, jsonText, listText, untrustedLine } from './cli-output.js';
import type { EnginesFlags } from './command-flags.js';
import { openJarvis } from './jarvis-options.js';
import { firstLine, formatTable, outputWidth } from './table.js';

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
  'No engine answered. Download a model to run in-process: `jarvis models pull qwen3-1.7b`; or start a server,\n' +
  'e.g. `ollama serve` (then `ollama pull qwen3:8b`), `vllm serve <model>` or `llama-server -m model.gguf\n' +
  '--port 8080`; or point to one with --base-url <url>.\n';

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
  if (engine.key === 'embedded') {
    if (engine.reachable) return 'model found';
    return engine.runtimeWorks === false ? 'runtime missing' : 'no model';
  }
  return engine.reachable ? 'reachable' : 'unreachable';
}

/** `jarvis models`: the chosen engine's models, then the local GGUF files (unless `--engine` names a server). */
export async function runModels(flags: EnginesFlags, io: CliIo): Promise<void> {
  const system = await import('../system/index.js');
  requireKnownEngine(flags.engine, system.ENGINE_KEYS);
  const jarvis = await openJarvis(configFlags(flags), io);
  try {
    const config = (await jarvis.system()).config;
    const choice = {
      config,
      engineKey: flags.engine,
      baseUrl: flags.baseUrl,
      discoveryTimeoutMs: flags.timeoutMs,
      signal: io.signal,
    };
    if (flags.engine !== undefined && flags.engine !== 'embedded') {
      printEngineModels(await system.listEngineModels(choice), flags, io);
      return;
    }
    const modelsDir = system.modelHubSettings(config, io.env).modelsDir;
    const [engine, local] = await Promise.all([
      system.listEngineModels(choice).then(
        (found): EngineOutcome => ({ found }),
        (error: unknown): EngineOutcome => ({ error }),
      ),
      listLocal(modelsDir, io.signal),
    ]);
    if (io.signal.aborted) throw io.signal.reason;
    printModelsAndLocal(engine, local, flags, io);
  } finally {
    await jarvis.close();
  }
}

/** What the engine listing gave: its models, or why there are none. */
type EngineOutcome = { readonly found: EngineModels } | { readonly error: unknown };

/** The models folder, its GGUF files (or why it could not be read), and how to print a size. */
interface LocalListing {
  readonly modelsDir: string;
  readonly models: readonly LocalModel[];
  readonly unreadable?: string;
  readonly formatBytes: (bytes: number) => string;
}

/** The local GGUF files of the models folder (node-llama-cpp reads their metadata); a failure is kept. */
async function listLocal(modelsDir: string, signal: AbortSignal): Promise<LocalListing> {
  const { formatBytes, listLocalModels } = await import('../engine/index.js');
  try {
    return { modelsDir, models: await listLocalModels(modelsDir, { signal }), formatBytes };
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    return { modelsDir, models: [], unreadable: describeError(error), formatBytes };
  }
}

/** The engine's models as `--json` or as a list (header and advice on stderr, names on stdout). */
function printEngineModels(found: EngineModels, flags: EnginesFlags, io: CliIo): void {
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
}

/**
 * The engine's models and the local GGUF files. An engine that failed is a warning when there are local files
 * (exit 0); with none, the engine's failure stands, after the line saying how to get a model.
 */
function printModelsAndLocal(
  engine: EngineOutcome,
  local: LocalListing,
  flags: EnginesFlags,
  io: CliIo,
): void {
  if ('error' in engine && local.models.length === 0) {
    if (flags.json !== true && local.unreadable === undefined)
      io.stderr.write(noLocalModelsAdvice(local.modelsDir));
    throw engine.error;
  }
  if (flags.json === true) {
    io.stdout.write(jsonText(modelsJson(engine, local)));
    return;
  }
  if ('found' in engine) printEngineModels(engine.found, flags, io);
  else
    io.stderr.write(
      `warning: ${diagnosticText(firstLine(describeError(engine.error)), io.session?.redactor, { singleLine: true })} (listing the local GGUF files only)\n`,
    );
  if (local.unreadable !== undefined)
    io.stderr.write(
      `warning: cannot list the local GGUF files: ${untrustedLine(local.unreadable)}\n`,
    );
  else if (local.models.length === 0) io.stderr.write(noLocalModelsAdvice(local.modelsDir));
  if (local.models.length === 0) return;
  io.stderr.write(`Local GGUF files in ${untrustedLine(local.modelsDir)}:\n`);
  io.stdout.write(localModelsTable(local.models, local.formatBytes, io));
}

/** The one line saying how to get a first model. */
function noLocalModelsAdvice(modelsDir: string): string {
  return `No GGUF files in ${untrustedLine(modelsDir)}: \`jarvis models pull ${RECOMMENDED_MODEL}\` downloads the recommended one.\n`;
}

/** The catalog entry `jarvis models pull` suggests first. */
const RECOMMENDED_MODEL = 'qwen3-1.7b';

/**
 * `--json` of `jarvis models` with the local files: the engine's fields (null when it failed, with `problem`),
 * then `local` (and `local_problem` when the folder could not be read).
 */
function modelsJson(engine: EngineOutcome, local: LocalListing): Record<string, unknown> {
  const found = 'found' in engine ? engine.found : undefined;
  return {
    engine: found?.engine ?? null,
    address: found?.address ?? null,
    models: found?.models ?? [],
    ...('error' in engine ? { problem: describeError(engine.error) } : {}),
    local: local.models.map(localModelJson),
    ...(local.unreadable === undefined ? {} : { local_problem: local.unreadable }),
  };
}

/** One local GGUF file as JSON with snake_case keys; absent facts are left out. */
export function localModelJson(model: LocalModel): Record<string, unknown> {
  const optional = {
    name: model.name,
    architecture: model.architecture,
    quantization: model.quantization,
    context_length: model.contextLength,
    chat_template: model.chatTemplate,
    template_in_file: model.templateInFile,
    problem: model.problem,
  };
  return {
    file: model.fileName,
    path: model.path,
    size_bytes: model.sizeBytes,
    ...Object.fromEntries(Object.entries(optional).filter(([, value]) => value !== undefined)),
  };
}

/** The local files as aligned columns; every cell that comes from the file is made one safe line. */
export function localModelsTable(
  models: readonly LocalModel[],
  formatBytes: (bytes: number) => string,
  io: CliIo,
): string {
  const rows = models.map((model) => [
    untrustedLine(model.fileName),
    formatBytes(model.sizeBytes),
    untrustedLine(model.quantization ?? '-'),
    model.contextLength === undefined ? '-' : String(model.contextLength),
    untrustedLine(templateCell(model)),
  ]);
  const width = outputWidth(io.stdout);
  return formatTable(rows, {
    headers: ['FILE', 'SIZE', 'QUANT', 'CONTEXT', 'TEMPLATE'],
    ...(width === undefined ? {} : { maxWidth: width }),
  });
}

/** The template column: the chat wrapper, and what is wrong with the file when something is. */
function templateCell(model: LocalModel): string {
  const template =
    model.chatTemplate === undefined
      ? undefined
      : `${model.chatTemplate}${model.templateInFile === true ? '' : ' (no template in file)'}`;
  if (model.problem === undefined) return template ?? '-';
  return template === undefined ? `! ${model.problem}` : `${template}  ! ${model.problem}`;
}
