/**
 * The validated configuration of OpenJarvis, after the config file, the environment and defaults were merged.
 * Paths are absolute (a leading `~` expanded). TOML keys are snake_case (`max_turns`); these fields camelCase.
 */
export interface JarvisConfig {
  /** The home folder (`OPENJARVIS_HOME`, default `~/.openjarvis`). */
  readonly home: string;
  /** The config file that was read, or undefined when none exists. */
  readonly configPath: string | undefined;
  readonly engine: EngineConfig;
  readonly agent: AgentConfig;
  readonly memory: MemoryConfig;
  readonly tools: ToolsConfig;
  readonly scheduler: SchedulerConfig;
  readonly telemetry: TelemetryConfig;
  readonly mcp: McpConfig;
  /** Modules imported at start-up so their tools and agents register themselves (`imports = [...]`). */
  readonly imports: readonly string[];
}

/** `[engine]` and `[engine.<key>]`; `[intelligence] default_model` lands in `model`. */
export interface EngineConfig {
  /** Engine key to use (`default`; env `OPENJARVIS_ENGINE`); undefined means discovery. */
  readonly default: string | undefined;
  /** Model name (`model` or `[intelligence] default_model`; env `OPENJARVIS_MODEL`); undefined means the engine's first. */
  readonly model: string | undefined;
  /** Per-engine server addresses (`[engine.ollama] host`; env `OLLAMA_HOST`, `OPENAI_BASE_URL`). */
  readonly hosts: Readonly<Record<string, string>>;
  /** Key for OpenAI-compatible servers (`[engine.openai] api_key`; env `OPENAI_API_KEY`). */
  readonly apiKey: string | undefined;
  /** GGUF file of the embedded engine (`[engine.embedded] model_path`). */
  readonly modelPath: string | undefined;
  /** Folder searched for GGUF files (`[engine.embedded] models_dir`, default `<home>/models`). */
  readonly modelsDir: string;
  /** Per-request timeout of HTTP engines in ms (`timeout_seconds` in TOML); undefined = engine default. */
  readonly timeoutMs: number | undefined;
}

/** `[agent]`. */
export interface AgentConfig {
  /** Agent used when none is named and no tools are given (`default_agent`, default `simple`). */
  readonly default: string;
  /** Default 10. */
  readonly maxTurns: number;
  /** Default 0.7. */
  readonly temperature: number;
  /** Default 1024. */
  readonly maxTokens: number;
  readonly systemPrompt: string | undefined;
  /** Tools given to runs that name none (`tools`, a list or a comma-separated string; default none). */
  readonly tools: readonly string[];
}

/** `[memory]`. */
export interface MemoryConfig {
  /** Memory backend registry key (default `sqlite`). */
  readonly backend: string;
  /** Default `<home>/memory.db`. */
  readonly dbPath: string;
  /** Add retrieved context before each question (`context_injection`, default true). */
  readonly contextInjection: boolean;
  /** Results injected (`top_k`, default 5). */
  readonly topK: number;
  /** Results scoring below this are not injected (default 0). */
  readonly minScore: number;
  /** Token budget of the injected context (default 2048). */
  readonly maxContextTokens: number;
  /** Chunking of `memory index` (defaults 512 / 64 tokens). */
  readonly chunkSize: number;
  readonly chunkOverlap: number;
}

/** `[tools]`, `[tools.file_read]`, `[tools.web_search]`, `[tools.code_interpreter]`. */
export interface ToolsConfig {
  /** Directories `file_read` may read (default: the current directory, never `/`). */
  readonly fileReadAllowedDirs: readonly string[];
  /** `file_read` may read well-known secret files (`allow_secret_files`, default false). */
  readonly fileReadAllowSecretFiles: boolean;
  /** `duckduckgo`, `searxng`, `tavily` or `brave`; undefined = chosen from the environment. */
  readonly webSearchProvider: string | undefined;
  /** SearXNG address when that provider is used. */
  readonly webSearchBaseUrl: string | undefined;
  readonly codeInterpreter: CodeInterpreterConfig;
}

/** `[tools.code_interpreter]`. */
export interface CodeInterpreterConfig {
  /** `auto` (default), `bwrap`, `pyodide`. */
  readonly backend: string;
  /** Sandboxes at once (default 2). */
  readonly maxConcurrent: number;
  /** Address-space limit in MiB (default 512). */
  readonly memoryMb: number;
  /** Run without isolation when no sandbox works (default false). */
  readonly allowUnsandboxed: boolean;
}

/** `[scheduler]`. */
export interface SchedulerConfig {
  /** Default `<home>/scheduler.db`. */
  readonly dbPath: string;
  /** Occurrences running at once (default 4). */
  readonly concurrency: number;
  /** Late occurrences within this window still run once (`catchup_window_seconds`, default 3600). */
  readonly catchupWindowMs: number;
  /** Shortest interval of a task a person creates (`min_interval_seconds`, default 1; agents never get less than 1 s). */
  readonly minIntervalMs: number;
  /** Runs of one task per minute beyond which occurrences are skipped (`max_runs_per_task_per_minute`, default 60). */
  readonly maxRunsPerTaskPerMinute: number;
}

/** `[telemetry]`. */
export interface TelemetryConfig {
  /** Default true. */
  readonly enabled: boolean;
  /** Default `<home>/telemetry.db`. */
  readonly dbPath: string;
}

/** `[mcp]` and `[[mcp.servers]]`. */
export interface McpConfig {
  readonly servers: readonly McpServerConfig[];
}

/** One external MCP server: stdio (`command` + `args`) or HTTP (`url`). */
export type McpServerConfig =
  | {
      readonly name: string;
      readonly transport: 'stdio';
      readonly command: string;
      readonly args: readonly string[];
      /** Extra environment variables of the server process. */
      readonly env: Readonly<Record<string, string>>;
      /** Tool names become `<prefix><tool>`; default `<name>.`. */
      readonly prefix: string;
      /** Per-call timeout (`timeout_seconds`, default 60 s). */
      readonly timeoutMs: number;
    }
  | {
      readonly name: string;
      readonly transport: 'http';
      readonly url: string;
      readonly headers: Readonly<Record<string, string>>;
      readonly prefix: string;
      readonly timeoutMs: number;
    };

/** A problem found while reading the config that does not stop it from loading (an unknown key). */
export interface ConfigWarning {
  readonly file: string;
  readonly line: number | undefined;
  readonly key: string;
  readonly message: string;
}
