import { isAbsolute, join } from 'node:path';
import { ENGINE_KEY_PATTERN, hostChecker, resolvePath } from './config-checks.js';
import type { TableReader } from './config-fields.js';
import type {
  AgentConfig,
  EngineConfig,
  MemoryConfig,
  SchedulerConfig,
  TelemetryConfig,
} from './config-types.js';
import { ENGINE_KEYS } from './engines.js';

/** The folders relative paths of a config file are resolved against. */
export interface PathContext {
  /** The OpenJarvis home folder: relative database and model paths. */
  readonly home: string;
  /** The current directory: relative `allowed_dirs`. */
  readonly cwd: string;
  /** The user's home folder, for `~`. */
  readonly homeDir: string;
  /** The config file's folder: relative `imports`; undefined when no file was read. */
  readonly configDir: string | undefined;
}

/** Which key of which table a value came from, so a cross-field check can point at it. */
interface Picked<T> {
  readonly value: T;
  readonly reader: TableReader;
  readonly key: string;
}

type Read<T> = (reader: TableReader, key: string) => T | undefined;

/** Engine keys the config file and `OPENJARVIS_ENGINE` accept. */
export const ENGINE_KEY_RULE = {
  pattern: {
    regex: ENGINE_KEY_PATTERN,
    description: `an engine key (${ENGINE_KEYS.join(', ')}, or one a module in imports registers)`,
  },
} as const;

const NAME_RULE = {
  pattern: { regex: /^[A-Za-z0-9_-]+$/, description: 'a name of letters, digits, _ and -' },
} as const;
const SERVER_ENGINES = ENGINE_KEYS.filter((key) => key !== 'embedded');
const FLAT_HOST_ENGINES = ['ollama', 'vllm', 'llamacpp'];
const UNUSED_INTELLIGENCE_KEYS = [
  'fallback_model',
  'checkpoint_path',
  'quantization',
  'provider',
  'top_p',
  'top_k',
  'repetition_penalty',
  'stop_sequences',
];

/**
 * Reads `key` (and its aliases) from each reader, first reader and first key winning. Every combination is read,
 * so every alias counts as a known key and an invalid value is reported even when another one wins.
 */
function pickFrom<T>(
  readers: readonly (TableReader | undefined)[],
  keys: readonly string[],
  read: Read<T>,
): Picked<T> | undefined {
  let picked: Picked<T> | undefined;
  for (const reader of readers) {
    if (reader === undefined) continue;
    for (const key of keys) {
      const value = read(reader, key);
      if (picked === undefined && value !== undefined) picked = { value, reader, key };
    }
  }
  return picked;
}

/** Reads a path: `~` expanded, relative to `base`. */
function readPath(
  reader: TableReader,
  key: string,
  base: string,
  context: PathContext,
): string | undefined {
  const text = reader.text(key);
  return text === undefined ? undefined : resolvePath(text, base, context.homeDir);
}

/** The first defined value; callers pass every read eagerly so each key is checked and counted as known. */
function first<T>(...values: readonly (T | undefined)[]): T | undefined {
  return values.find((value) => value !== undefined);
}

/** True for the built-in engine keys. */
export function isBuiltinEngine(key: string): boolean {
  return (ENGINE_KEYS as readonly string[]).includes(key);
}

/** Reads an engine key, warning when no built-in engine has it. */
function readEngineKey(reader: TableReader | undefined, key: string): string | undefined {
  const value = reader?.text(key, ENGINE_KEY_RULE);
  if (value !== undefined && !isBuiltinEngine(value)) reader?.warn(key, notBuiltinMessage(value));
  return value;
}

/**
 * `[engine]`, `[engine.<key>]` and the engine keys of `[intelligence]` (both upstream schemas). As upstream, a
 * non-empty `[intelligence] preferred_engine` wins over `[engine] default`; our `[engine] model` wins over
 * `[intelligence] default_model`.
 */
export function readEngine(root: TableReader, context: PathContext): EngineConfig {
  const engine = root.table('engine');
  const intelligence = root.table('intelligence');
  const chosen = first(
    readEngineKey(intelligence, 'preferred_engine'),
    readEngineKey(engine, 'default'),
  );
  const model = first(engine?.text('model'), intelligence?.text('default_model'));
  const timeoutSeconds = engine?.number('timeout_seconds', { min: 0, exclusiveMin: true });
  intelligence?.ignore(UNUSED_INTELLIGENCE_KEYS);
  engine?.ignore(['llamacpp_path']);
  const servers = readEngineTables(engine);
  const embedded = servers.embedded;
  const modelPath = first(
    embedded && readPath(embedded, 'model_path', context.home, context),
    intelligence && readPath(intelligence, 'model_path', context.home, context),
  );
  const modelsDir = embedded && readPath(embedded, 'models_dir', context.home, context);
  return {
    default: chosen,
    model,
    hosts: servers.hosts,
    apiKey: servers.apiKey,
    modelPath,
    modelsDir: modelsDir ?? join(context.home, 'models'),
    timeoutMs: timeoutSeconds === undefined ? undefined : Math.round(timeoutSeconds * 1000),
  };
}

/** The message of an engine key that no built-in engine has. */
export function notBuiltinMessage(key: string): string {
  return `'${key}' is not a built-in engine (${ENGINE_KEYS.join(', ')}); it works only if a module in imports registers it`;
}

interface EngineTables {
  readonly hosts: Record<string, string>;
  readonly apiKey: string | undefined;
  readonly embedded: TableReader | undefined;
}

/** Old flat `<key>_host` keys, then `[engine.<key>]` tables (which win); unknown engine tables keep their host. */
function readEngineTables(engine: TableReader | undefined): EngineTables {
  const hosts: Record<string, string> = {};
  if (engine === undefined) return { hosts, apiKey: undefined, embedded: undefined };
  for (const key of FLAT_HOST_ENGINES) {
    const host = engine.read(`${key}_host`, hostChecker(key));
    if (host !== undefined) hosts[key] = host;
  }
  const custom = engine
    .keys()
    .filter(
      (key) => engine.holdsTable(key) && ENGINE_KEY_PATTERN.test(key) && !isBuiltinEngine(key),
    );
  for (const key of [...SERVER_ENGINES, ...custom]) {
    const table = engine.table(key);
    const host = table?.read('host', hostChecker(key));
    if (host !== undefined) hosts[key] = host;
    if (table !== undefined && !isBuiltinEngine(key)) engine.warn(key, notBuiltinMessage(key));
  }
  engine.table('llamacpp')?.ignore(['binary_path']);
  const apiKey = engine.table('openai')?.text('api_key');
  const embedded = engine.table('embedded');
  return { hosts, apiKey, embedded };
}

/** `[agent]`, with the upstream aliases `default_tools`, `[intelligence] temperature/max_tokens`, `[tools] enabled`. */
export function readAgent(root: TableReader): AgentConfig {
  const agent = root.table('agent');
  const intelligence = root.table('intelligence');
  const tools = root.table('tools');
  const temperature = first(
    agent?.number('temperature', { min: 0, max: 2 }),
    intelligence?.number('temperature', { min: 0, max: 2 }),
  );
  const maxTokens = first(
    agent?.integer('max_tokens', { min: 1 }),
    intelligence?.integer('max_tokens', { min: 1 }),
  );
  const toolNames = first(
    agent?.stringList('tools', true),
    agent?.stringList('default_tools', true),
    tools?.stringList('enabled', true),
  );
  agent?.ignore(['objective', 'system_prompt_path']);
  return {
    default: agent?.text('default_agent', NAME_RULE) ?? 'simple',
    maxTurns: agent?.integer('max_turns', { min: 1 }) ?? 10,
    temperature: temperature ?? 0.7,
    maxTokens: maxTokens ?? 1024,
    systemPrompt: agent?.text('system_prompt'),
    tools: toolNames ?? [],
  };
}

/** `[memory]` or its upstream alias `[tools.storage]` (the first wins key by key), and `[agent] context_from_memory`. */
export function readMemory(root: TableReader, context: PathContext): MemoryConfig {
  const tables = [root.table('memory'), root.table('tools')?.table('storage')];
  const pick = <T>(keys: readonly string[], read: Read<T>) => pickFrom(tables, keys, read)?.value;
  const injection = pick(['context_injection'], (reader, key) => reader.boolean(key));
  const fromAgent = root.table('agent')?.boolean('context_from_memory');
  const dbPath = pick(['db_path'], (reader, key) => readPath(reader, key, context.home, context));
  return {
    backend:
      pick(['backend', 'default_backend'], (reader, key) => reader.text(key, NAME_RULE)) ??
      'sqlite',
    dbPath: dbPath ?? join(context.home, 'memory.db'),
    contextInjection: first(injection, fromAgent) ?? true,
    topK: pick(['top_k', 'context_top_k'], wholeNumber(1, 50)) ?? 5,
    minScore:
      pick(['min_score', 'context_min_score'], (reader, key) => reader.number(key, {})) ?? 0,
    maxContextTokens: pick(['max_context_tokens', 'context_max_tokens'], wholeNumber(1)) ?? 2048,
    ...readChunking(tables),
  };
}

function wholeNumber(min: number, max?: number): Read<number> {
  return (reader, key) => reader.integer(key, max === undefined ? { min } : { min, max });
}

/** `chunk_size` (default 512) and `chunk_overlap` (default 64), the overlap smaller than the size. */
function readChunking(tables: readonly (TableReader | undefined)[]) {
  const chunkSize = pickFrom(tables, ['chunk_size'], wholeNumber(1))?.value ?? 512;
  const overlap = pickFrom(tables, ['chunk_overlap'], wholeNumber(0));
  if (overlap !== undefined && overlap.value >= chunkSize) {
    overlap.reader.error(
      overlap.key,
      `expected a whole number smaller than chunk_size (${chunkSize}), got ${overlap.value}`,
    );
  }
  const chunkOverlap =
    overlap !== undefined && overlap.value < chunkSize
      ? overlap.value
      : Math.min(64, chunkSize - 1);
  return { chunkSize, chunkOverlap };
}

/** `[scheduler]`; upstream's `enabled` and `poll_interval` are ignored (the scheduler runs when started). */
export function readScheduler(root: TableReader, context: PathContext): SchedulerConfig {
  const scheduler = root.table('scheduler');
  const dbPath = scheduler && readPath(scheduler, 'db_path', context.home, context);
  const concurrency = scheduler?.integer('concurrency', { min: 1 });
  const catchupSeconds = scheduler?.number('catchup_window_seconds', { min: 0 });
  const minIntervalSeconds = scheduler?.number('min_interval_seconds', {
    min: 0,
    exclusiveMin: true,
  });
  const maxRunsPerMinute = scheduler?.integer('max_runs_per_task_per_minute', { min: 1 });
  scheduler?.ignore(['enabled', 'poll_interval']);
  return {
    dbPath: dbPath ?? join(context.home, 'scheduler.db'),
    concurrency: concurrency ?? 4,
    catchupWindowMs: Math.round((catchupSeconds ?? 3600) * 1000),
    minIntervalMs: Math.max(1, Math.round((minIntervalSeconds ?? 1) * 1000)),
    maxRunsPerTaskPerMinute: maxRunsPerMinute ?? 60,
  };
}

/** `[telemetry]`; upstream's GPU keys are ignored. */
export function readTelemetry(root: TableReader, context: PathContext): TelemetryConfig {
  const telemetry = root.table('telemetry');
  const enabled = telemetry?.boolean('enabled');
  const dbPath = telemetry && readPath(telemetry, 'db_path', context.home, context);
  telemetry?.ignore(['gpu_metrics', 'gpu_poll_interval_ms']);
  return { enabled: enabled ?? true, dbPath: dbPath ?? join(context.home, 'telemetry.db') };
}

/**
 * Top-level `imports`: package names stay as written; paths (`./x.js`, `../x.js`, `~/x.js`, `/x.js`) become
 * absolute, relative ones resolved against the config file's folder.
 */
export function readImports(root: TableReader, context: PathContext): string[] {
  const imports = root.stringList('imports', false) ?? [];
  const base = context.configDir ?? context.cwd;
  return imports.map((specifier) =>
    isPathSpecifier(specifier) ? resolvePath(specifier, base, context.homeDir) : specifier,
  );
}

function isPathSpecifier(specifier: string): boolean {
  return /^(\.{1,2}|~)([/\\]|$)/.test(specifier) || isAbsolute(specifier);
}
