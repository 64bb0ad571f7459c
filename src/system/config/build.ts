import { dirname, isAbsolute, join, resolve } from 'node:path';
import type { ConfigFile } from './file-schema.js';
import { type PathContext, resolvePath } from './paths.js';

/** Where the config was read and the folders its relative paths start from. */
export interface ConfigWhere extends PathContext {
  /** The config file that was read, or undefined when none exists. */
  readonly configPath: string | undefined;
}

type Engine = NonNullable<ConfigFile['engine']>;
type MemoryTable = NonNullable<ConfigFile['memory']>;

/** The built-in engines with a `[engine.<key>] host`, and the upstream flat `<key>_host` keys. */
const SERVER_ENGINES = ['ollama', 'vllm', 'llamacpp', 'sglang', 'lmstudio', 'openai'] as const;
const FLAT_HOSTS = ['ollama', 'vllm', 'llamacpp'] as const;

/** A path of the home folder (databases, models): `~` expanded, relative to the home folder; `fallback` when unset. */
function homePath(path: string | undefined, fallback: string, where: PathContext): string {
  return path === undefined
    ? join(where.home, fallback)
    : resolvePath(path, where.home, where.homeDir);
}

/** A database file as `homePath` resolves it; SQLite's `:memory:` (a database kept in memory) stays as it is. */
function databasePath(path: string | undefined, fallback: string, where: PathContext): string {
  return path === ':memory:' ? path : homePath(path, fallback, where);
}

function milliseconds(seconds: number): number {
  return Math.round(seconds * 1000);
}

/**
 * The configuration a checked config file gives: our keys over the upstream aliases (a non-empty `[intelligence]
 * preferred_engine` over `[engine] default`, as upstream), defaults for what is unset, paths made absolute.
 * `customHosts` are the checked addresses of the `[engine.<key>]` tables of engines that are not built in
 * (file-schema's `customEngineHosts`): passed in, so that this module needs no schema and the defaults can be
 * built without loading zod (see `defaultConfig`).
 */
export function buildConfig(
  file: ConfigFile,
  where: ConfigWhere,
  customHosts: Readonly<Record<string, string>> = {},
) {
  return {
    /** The home folder (`OPENJARVIS_HOME`, default `~/.openjarvis`). */
    home: where.home,
    /** The config file that was read, or undefined when none exists. */
    configPath: where.configPath,
    engine: engineConfig(file, where, customHosts),
    agent: agentConfig(file),
    memory: memoryConfig(file, where),
    tools: toolsConfig(file, where),
    scheduler: schedulerConfig(file, where),
    sessions: {
      /** The conversations of `jarvis chat` and `--session` (default `<home>/sessions.db`). */
      dbPath: databasePath(file.sessions?.db_path, 'sessions.db', where),
      /** The model's context window in tokens when the engine cannot tell (`context_tokens`); undefined: ask it. */
      contextTokens: file.sessions?.context_tokens,
      /** Tokens kept free for each answer when fitting history (`answer_tokens`, default 1024). */
      answerTokens: file.sessions?.answer_tokens ?? 1024,
    },
    storage: storageConfig(file),
    telemetry: {
      /** Record inference and tool statistics (default true). */
      enabled: file.telemetry?.enabled ?? true,
      dbPath: databasePath(file.telemetry?.db_path, 'telemetry.db', where),
      /** Run traces kept in the store; older runs are deleted (`trace_max_runs`, default 1000). */
      traceMaxRuns: file.telemetry?.trace_max_runs ?? 1000,
      /** Characters kept of each traced tool argument, result and error (`trace_text_chars`, default 2000). */
      traceTextChars: file.telemetry?.trace_text_chars ?? 2000,
      /** OTLP/HTTP base URL that `jarvis` exports its spans to (`otlp_endpoint`; env OTEL_EXPORTER_OTLP_ENDPOINT). */
      otlpEndpoint: file.telemetry?.otlp_endpoint,
      /** Headers sent with every OTLP export, e.g. an API key (`otlp_headers`). */
      otlpHeaders: file.telemetry?.otlp_headers ?? {},
    },
    mcp: { servers: file.mcp?.servers ?? [] },
    /** Modules imported at start-up so their tools and agents register themselves (`imports = [...]`). */
    imports: (file.imports ?? []).map((specifier) => importPath(specifier, where)),
  };
}

/** `[engine]`, `[engine.<key>]` and the engine keys of `[intelligence]`. */
function engineConfig(
  file: ConfigFile,
  where: PathContext,
  customHosts: Readonly<Record<string, string>>,
) {
  const { engine, intelligence } = file;
  const timeoutSeconds = engine?.timeout_seconds;
  return {
    /** Engine key to use (`default`; env `OPENJARVIS_ENGINE`); undefined means discovery. */
    default: intelligence?.preferred_engine ?? engine?.default,
    /** Model name (env `OPENJARVIS_MODEL`); undefined means the engine's first. */
    model: engine?.model ?? intelligence?.default_model,
    /** Per-engine server addresses (`[engine.ollama] host`; env `OLLAMA_HOST`, `OPENAI_BASE_URL`). */
    hosts: engine === undefined ? {} : engineHosts(engine, customHosts),
    /** Key for OpenAI-compatible servers (`[engine.openai] api_key`; env `OPENAI_API_KEY`). */
    apiKey: engine?.openai?.api_key,
    /** GGUF file of the embedded engine (`[engine.embedded] model_path`). */
    modelPath: optionalHomePath(engine?.embedded?.model_path ?? intelligence?.model_path, where),
    /** Folder searched for GGUF files (`[engine.embedded] models_dir`, default `<home>/models`). */
    modelsDir: homePath(engine?.embedded?.models_dir, 'models', where),
    /** The format models write tool calls in as text (`[engine] tool_call_format`); undefined = by model name. */
    toolCallFormat: engine?.tool_call_format,
    /** How the embedded engine runs (`[engine.embedded] gpu, threads, context_size, chat_wrapper`). */
    embedded: {
      gpu: engine?.embedded?.gpu,
      threads: engine?.embedded?.threads,
      contextSize: engine?.embedded?.context_size,
      chatWrapper: engine?.embedded?.chat_wrapper,
    },
    /** Per-request timeout of HTTP engines in ms (`timeout_seconds`); undefined = engine default. */
    timeoutMs: timeoutSeconds === undefined ? undefined : milliseconds(timeoutSeconds),
  };
}

function optionalHomePath(path: string | undefined, where: PathContext): string | undefined {
  return path === undefined ? undefined : resolvePath(path, where.home, where.homeDir);
}

/** Old flat `<key>_host` keys, then `[engine.<key>]` tables (which win), then engines that are not built in. */
function engineHosts(
  engine: Engine,
  customHosts: Readonly<Record<string, string>>,
): Record<string, string> {
  const hosts: Record<string, string> = {};
  const add = (key: string, host: string | undefined) => {
    if (host !== undefined) hosts[key] = host;
  };
  for (const key of FLAT_HOSTS) add(key, engine[`${key}_host`]);
  for (const key of SERVER_ENGINES) add(key, engine[key]?.host);
  for (const [key, host] of Object.entries(customHosts)) add(key, host);
  return hosts;
}

/** `[agent]`, with the upstream `default_tools`, `[intelligence] temperature/max_tokens` and `[tools] enabled`. */
function agentConfig(file: ConfigFile) {
  const { agent, intelligence } = file;
  return {
    /** Agent used when none is named and no tools are given (`default_agent`, default `simple`). */
    default: agent?.default_agent ?? 'simple',
    maxTurns: agent?.max_turns ?? 10,
    temperature: agent?.temperature ?? intelligence?.temperature ?? 0.7,
    maxTokens: agent?.max_tokens ?? intelligence?.max_tokens ?? 1024,
    systemPrompt: agent?.system_prompt,
    /** Tools given to runs that name none (a list or a comma-separated string; default none). */
    tools: agent?.tools ?? agent?.default_tools ?? file.tools?.enabled ?? [],
  };
}

/** `[memory]` or its upstream twin `[tools.storage]` (the first wins key by key), and `[agent] context_from_memory`. */
function memoryConfig(file: ConfigFile, where: PathContext) {
  const tables = [file.memory, file.tools?.storage];
  const pick = <K extends keyof MemoryTable>(...keys: K[]): MemoryTable[K] | undefined => {
    for (const table of tables) {
      const key = keys.find((name) => table?.[name] !== undefined);
      if (key !== undefined) return table?.[key];
    }
    return undefined;
  };
  const chunkSize = pick('chunk_size') ?? 512;
  const overlap = pick('chunk_overlap');
  return {
    /** Memory backend registry key (default `sqlite`). */
    backend: pick('backend', 'default_backend') ?? 'sqlite',
    dbPath: databasePath(pick('db_path'), 'memory.db', where),
    /** Add retrieved context before each question (`context_injection`, default true). */
    contextInjection: pick('context_injection') ?? file.agent?.context_from_memory ?? true,
    topK: pick('top_k', 'context_top_k') ?? 5,
    minScore: pick('min_score', 'context_min_score') ?? 0,
    maxContextTokens: pick('max_context_tokens', 'context_max_tokens') ?? 2048,
    /** Chunking of `memory index` (defaults 512 / 64 tokens), the overlap smaller than the size. */
    chunkSize,
    chunkOverlap:
      overlap !== undefined && overlap < chunkSize ? overlap : Math.min(64, chunkSize - 1),
  };
}

/** `[tools.file_read]`, `[tools.web_search]` and `[tools.code_interpreter]`. */
function toolsConfig(file: ConfigFile, where: PathContext) {
  const {
    file_read: fileRead,
    web_search: webSearch,
    code_interpreter: sandbox,
  } = file.tools ?? {};
  const allowedDirs = fileRead?.allowed_dirs ?? defaultAllowedDirs(where);
  return {
    /** Directories `file_read` may read (default: the current directory, never `/`). */
    fileReadAllowedDirs: allowedDirs.map((dir) => resolvePath(dir, where.cwd, where.homeDir)),
    /** `file_read` may read well-known secret files (default false). */
    fileReadAllowSecretFiles: fileRead?.allow_secret_files ?? false,
    /** `duckduckgo`, `searxng`, `tavily` or `brave`; undefined = chosen from the environment. */
    webSearchProvider: webSearch?.provider,
    /** SearXNG address when that provider is used. */
    webSearchBaseUrl: webSearch?.base_url,
    codeInterpreter: {
      /** `auto` (default), `bwrap`, `pyodide`. */
      backend: sandbox?.backend ?? 'auto',
      /** Sandboxes at once (default 2). */
      maxConcurrent: sandbox?.max_concurrent ?? 2,
      /** Address-space limit in MiB (default 512). */
      memoryMb: sandbox?.memory_mb ?? 512,
      /** Run without isolation when no sandbox works (default false). */
      allowUnsandboxed: sandbox?.allow_unsandboxed ?? false,
    },
  };
}

/**
 * `file_read`'s folders when `allowed_dirs` is not set: the current directory, except the file-system root
 * (a runtime started in `/`, as services and containers often are, would otherwise expose the whole machine):
 * then none, and the tool says how to configure them.
 */
function defaultAllowedDirs(where: PathContext): string[] {
  const cwd = resolve(where.cwd);
  return dirname(cwd) === cwd ? [] : [where.cwd];
}

/** `[scheduler]`; upstream's `enabled` and `poll_interval` are ignored (the scheduler runs when started). */
function schedulerConfig(file: ConfigFile, where: PathContext) {
  const scheduler = file.scheduler;
  return {
    dbPath: databasePath(scheduler?.db_path, 'scheduler.db', where),
    /** Occurrences running at once (default 4). */
    concurrency: scheduler?.concurrency ?? 4,
    /** Late occurrences within this window still run once (`catchup_window_seconds`, default 3600). */
    catchupWindowMs: milliseconds(scheduler?.catchup_window_seconds ?? 3600),
    /** Shortest interval of a task a person creates (`min_interval_seconds`, default 1 s, at least 1 ms). */
    minIntervalMs: Math.max(1, milliseconds(scheduler?.min_interval_seconds ?? 1)),
    /** Runs of one task per minute beyond which occurrences are skipped (default 60). */
    maxRunsPerTaskPerMinute: scheduler?.max_runs_per_task_per_minute ?? 60,
  };
}

/** `[storage]`: where sessions, memory, the scheduler and telemetry keep their data. */
function storageConfig(file: ConfigFile) {
  const storage = file.storage;
  return {
    /** `sqlite` (default: a file per store in the home folder) or `postgres` (one shared database). */
    backend: storage?.backend ?? 'sqlite',
    /** The PostgreSQL URL (`url`; env `OPENJARVIS_DATABASE_URL`, which wins). A secret: never shown. */
    url: storage?.url,
    /** Connections per process (`pool_size`, default 10). */
    poolSize: storage?.pool_size ?? 10,
    /** How long opening one connection may take (`connect_timeout_ms`, default 10000). */
    connectTimeoutMs: storage?.connect_timeout_ms ?? 10_000,
    /** The server cancels a statement running longer (`statement_timeout_ms`, default 30000). */
    statementTimeoutMs: storage?.statement_timeout_ms ?? 30_000,
  };
}

/**
 * An `imports` entry: package names stay as written; paths (`./x.js`, `../x.js`, `~/x.js`, `/x.js`) become
 * absolute, relative ones resolved against the config file's folder.
 */
function importPath(specifier: string, where: PathContext): string {
  const isPath = /^(\.{1,2}|~)([/\\]|$)/.test(specifier) || isAbsolute(specifier);
  return isPath ? resolvePath(specifier, where.configDir ?? where.cwd, where.homeDir) : specifier;
}
