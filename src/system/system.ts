import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  AgentRegistry,
  type AgentRegistryEntry,
  type AgentResult,
  type AgentStreamEvent,
  type Clock,
  createRedactor,
  EngineRegistry,
  EventBus,
  type InferenceEngine,
  JarvisError,
  type MemoryBackend,
  MemoryRegistry,
  NoSuchToolError,
  type Redactor,
  type Registry,
  systemClock,
  type Tool,
  ToolRegistry,
  type ToolRegistryEntry,
} from '../core/index.js';
import type { McpToolListing, McpToolSource } from '../mcp/index.js';
import {
  type IndexPathOptions,
  type IndexSummary,
  type IndexTarget,
  indexPath,
} from '../memory/index.js';
import {
  type RunTaskRequest,
  type SchedulerStore,
  type SchedulerStoreBackend,
  TaskScheduler,
} from '../scheduler/index.js';
import { isSessionId, type SessionInfo, type SessionStore } from '../sessions/index.js';
import { redactDatabaseUrl } from '../storage/index.js';
import {
  InstrumentedEngine,
  type RunTracing,
  startRunTracing,
  type TelemetryBackend,
} from '../telemetry/index.js';
import {
  CodeInterpreterTool,
  type ConfirmCallback,
  type SandboxBackendChoice,
} from '../tools/index.js';
import { registerAllBuiltins } from './builtins.js';
import { configSecrets, type JarvisConfig } from './config/index.js';
import { useEmbeddedRuntimeIn } from './embedded-runtime-location.js';
import { selectEngine } from './engine-selection.js';
import type { EngineRequestLogCallback } from './engine-settings.js';
import {
  runSessionTurn,
  type SessionRunResult,
  type SessionTurnDeps,
  streamSessionTurn,
} from './session-turn.js';
import {
  openConfiguredSchedulerStore,
  openConfiguredTelemetryStore,
  openPostgresMemory,
  postgresOptions,
} from './storage-backends.js';
import { checkRunnableAgent, createRegisteredAgent } from './system-agents.js';
import { chooseModel, engineSelectionOf, type ResolvedEngine } from './system-engine.js';
import { createRegisteredMemory } from './system-memory.js';
import {
  agentRunOptions,
  buildRunContext,
  chooseAgentName,
  duplicateToolName,
  type PreparedRun,
  type RunRequest,
  requestedTools,
} from './system-run.js';
import { openSessionStore, type SessionHistory, sessionHistory } from './system-sessions.js';
import { createRegisteredTool, type ToolDependencies, unknownToolError } from './system-tools.js';

/** The registries a system builds from (the global ones by default, with the built-ins added). */
export interface SystemRegistries {
  readonly tools: Registry<ToolRegistryEntry>;
  readonly agents: Registry<AgentRegistryEntry>;
  readonly engines: typeof EngineRegistry;
  readonly memory: typeof MemoryRegistry;
}

/**
 * Options of `buildSystem`: the config plus what flags and callers choose over it (`JarvisOptions` is derived
 * from this type).
 */
export interface BuildSystemOptions {
  readonly config: JarvisConfig;
  /** A ready engine, used as is (the system closes it on `close()`). */
  readonly engine?: InferenceEngine | undefined;
  /** An engine key (`ollama`, `vllm`, `openai`, …; the CLI's `--engine`): used as given, never replaced. */
  readonly engineKey?: string | undefined;
  /** The model (`--model`); default: the config's, else the engine's first model. */
  readonly model?: string | undefined;
  /** The engine server's address (`--base-url`; with `openai` or no engine key: any OpenAI-compatible server). */
  readonly baseUrl?: string | undefined;
  /** Where every layer's events are published (a new bus by default). */
  readonly bus?: EventBus | undefined;
  /** Approves calls of tools that require confirmation; without it such calls are refused. */
  readonly confirm?: ConfirmCallback | undefined;
  /** Registries to build from instead of the global ones (tests, embedding); the built-ins are added. */
  readonly registries?: Partial<SystemRegistries> | undefined;
  /** Environment read for config secrets and tool keys such as web_search's (default `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>> | undefined;
  /** The clock of the scheduler and the agents (default the system clock). */
  readonly clock?: Clock | undefined;
  /** Budget of the engine discovery probe (default 400 ms). */
  readonly discoveryTimeoutMs?: number | undefined;
  /** Told of every HTTP request the engine makes (method, redacted address, status, timing): `--verbose`. */
  readonly requestLog?: EngineRequestLogCallback | undefined;
}

/** Options of `indexMemory`: progress reports and cancellation. */
export type MemoryIndexOptions = Pick<IndexPathOptions, 'onProgress' | 'signal' | 'maxFileBytes'>;

/** What a finished run returns besides the agent's result. */
export interface SystemRunResult {
  readonly result: AgentResult;
  readonly agentName: string;
  readonly engineKey: string;
  readonly model: string;
}

/**
 * The composition root: picks the engine, memory, telemetry store, scheduler and sandbox from the config, and
 * builds tools and agents by name with their dependencies injected. Everything is opened on first use.
 */
export class JarvisSystem {
  readonly config: JarvisConfig;
  readonly bus: EventBus;
  readonly registries: SystemRegistries;
  /**
   * Removes every secret the config and environment hold (and common key shapes) from text: applied to what
   * is stored in telemetry and to every message the CLI prints.
   */
  readonly redact: Redactor;
  readonly #options: BuildSystemOptions;
  #engine: Promise<ResolvedEngine> | undefined;
  #memory: MemoryBackend | undefined;
  #scheduler: TaskScheduler | undefined;
  #schedulerStore: SchedulerStore | SchedulerStoreBackend | undefined;
  #telemetry: TelemetryBackend | undefined;
  #tracing: Promise<RunTracing> | undefined;
  #sessions: SessionStore | undefined;
  #sessionHistory: SessionHistory | undefined;
  #codeInterpreter: CodeInterpreterTool | undefined;
  #mcp: Promise<McpToolSource> | undefined;
  #closing: Promise<void> | undefined;

  constructor(options: BuildSystemOptions) {
    this.#options = options;
    this.config = options.config;
    this.bus = options.bus ?? new EventBus();
    this.redact = createRedactor(configSecrets(options.config, options.env ?? process.env));
    this.registries = {
      tools: options.registries?.tools ?? ToolRegistry,
      agents: options.registries?.agents ?? AgentRegistry,
      engines: options.registries?.engines ?? EngineRegistry,
      memory: options.registries?.memory ?? MemoryRegistry,
    };
    registerAllBuiltins(this.registries);
    useEmbeddedRuntimeIn(options.config.home);
  }

  /** The engine, its key and the model, chosen on first use (telemetry wraps it when enabled). */
  engine(signal?: AbortSignal): Promise<ResolvedEngine> {
    this.#requireOpen();
    this.#engine ??= this.#resolveEngine(signal);
    this.#engine.catch(() => {
      this.#engine = undefined;
    });
    return this.#engine;
  }

  async #resolveEngine(signal: AbortSignal | undefined): Promise<ResolvedEngine> {
    const choice = { ...this.#options, signal };
    const chosen = await selectEngine(engineSelectionOf(choice, this.registries.engines));
    const model = await chooseModel(choice, chosen.key, chosen.engine).catch(async (error) => {
      await chosen.engine.close().catch(() => undefined);
      throw error;
    });
    return {
      key: chosen.key,
      engine: await this.#instrument(chosen.engine),
      model,
      ...(chosen.address === undefined ? {} : { address: chosen.address }),
    };
  }

  async #instrument(engine: InferenceEngine): Promise<InferenceEngine> {
    if (!this.config.telemetry.enabled) return engine;
    if (engine instanceof InstrumentedEngine) return engine;
    this.#tracing ??= this.#startTracing();
    await this.#tracing;
    this.telemetry().attach(this.bus);
    return new InstrumentedEngine({ engine, bus: this.bus, redact: this.redact });
  }

  /** Traces every run into the store and to OpenTelemetry (over OTLP when an endpoint is configured). */
  #startTracing(): Promise<RunTracing> {
    const settings = this.config.telemetry;
    const env = this.#options.env ?? process.env;
    const endpoint =
      settings.otlpEndpoint ?? (env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || undefined);
    const tracing = startRunTracing({
      bus: this.bus,
      store: this.telemetry(),
      redact: this.redact,
      maxTextChars: settings.traceTextChars,
      ...(endpoint === undefined ? {} : { otlp: { endpoint, headers: settings.otlpHeaders } }),
    });
    tracing.catch(() => {
      this.#tracing = undefined;
    });
    return tracing;
  }

  /** The telemetry store `[storage]` picks (opened on first use; PostgreSQL connects on its first write or read). */
  telemetry(): TelemetryBackend {
    this.#requireOpen();
    this.#telemetry ??= openConfiguredTelemetryStore(this.config, { redact: this.redact });
    return this.#telemetry;
  }

  /** The conversation sessions (store opened on first use). */
  sessions(): SessionStore {
    this.#requireOpen();
    this.#sessions ??= openSessionStore(this.config);
    return this.#sessions;
  }

  /**
   * The sessions store when it is open or its database exists (always on PostgreSQL), so commands that only look
   * never create a database.
   */
  sessionsIfPresent(): SessionStore | undefined {
    if (this.#sessions !== undefined) return this.#sessions;
    const path = this.config.sessions.dbPath;
    const present =
      this.config.storage.backend === 'postgres' || path === ':memory:' || existsSync(path);
    return present ? this.sessions() : undefined;
  }

  /**
   * The session with this id or name; a name no session has yet starts one with it, no name starts an unnamed
   * one. An id (`ses_…`) that is not there is a `session_not_found` error.
   */
  async openSession(idOrName?: string): Promise<SessionInfo> {
    return (await this.findOrStartSession(idOrName)).session;
  }

  /** `openSession`, also saying whether this call started the session (`started`) or found it. */
  async findOrStartSession(
    idOrName?: string,
  ): Promise<{ readonly session: SessionInfo; readonly started: boolean }> {
    const store = this.sessions();
    if (idOrName === undefined) return { session: await store.create(), started: true };
    const found = await store.find(idOrName);
    if (found !== undefined) return { session: found, started: false };
    if (isSessionId(idOrName)) {
      throw new JarvisError({
        code: 'session_not_found',
        message: `no session '${idOrName}'; \`jarvis sessions list\` shows the sessions`,
      });
    }
    return { session: await store.create({ name: idOrName }), started: true };
  }

  /** Runs one question as the next turn of a session (see `runSessionTurn`). */
  runInSession(
    sessionId: string,
    query: string,
    request: RunRequest = {},
  ): Promise<SessionRunResult> {
    return runSessionTurn(this.#sessionDeps(), sessionId, query, request);
  }

  /** Streams one question as the next turn of a session; the turn is stored before the `result` event. */
  streamInSession(
    sessionId: string,
    query: string,
    request: RunRequest = {},
  ): AsyncGenerator<AgentStreamEvent> {
    return streamSessionTurn(this.#sessionDeps(), sessionId, query, request);
  }

  #sessionDeps(): SessionTurnDeps {
    const store = this.sessions();
    this.#sessionHistory ??= sessionHistory(store, this.config);
    return {
      store,
      prepare: (query, request) => this.prepare(query, request),
      history: this.#sessionHistory.prepare,
      learn: this.#sessionHistory.learn,
      clock: this.#options.clock ?? systemClock,
      redact: this.redact,
    };
  }

  /** The memory backend (opened, and its database created, on first use). */
  memory(): MemoryBackend {
    this.#requireOpen();
    this.#memory ??= this.#usesPostgresMemory()
      ? openPostgresMemory(this.config, this.bus)
      : createRegisteredMemory(this.config.memory.backend, this.registries.memory, {
          dbPath: this.config.memory.dbPath,
          bus: this.bus,
        });
    return this.#memory;
  }

  /** `[storage] backend = "postgres"` moves the built-in SQLite memory there; other backends stay as they are. */
  #usesPostgresMemory(): boolean {
    return this.config.storage.backend === 'postgres' && this.config.memory.backend === 'sqlite';
  }

  /**
   * Where memory is kept, as people should read it: the backend's name and its database (the SQLite file, or the
   * PostgreSQL URL without its password when `[storage]` moved the built-in memory there).
   */
  memoryLocation(): { readonly backend: string; readonly location: string } {
    if (this.#usesPostgresMemory()) {
      return { backend: 'postgres', location: redactDatabaseUrl(postgresOptions(this.config).url) };
    }
    return { backend: this.config.memory.backend, location: this.config.memory.dbPath };
  }

  /** The memory when it is open or its database exists; asking a question never creates one. */
  memoryIfPresent(): MemoryBackend | undefined {
    if (this.#memory !== undefined) return this.#memory;
    if (this.#usesPostgresMemory()) return this.memory();
    const path = this.config.memory.dbPath;
    return path !== ':memory:' && existsSync(path) ? this.memory() : undefined;
  }

  /**
   * Indexes a file or folder into memory (chunk sizes from the config). Backends that cannot replace a
   * source's documents (only `store`) are refused with a clear error.
   */
  indexMemory(path: string, options: MemoryIndexOptions = {}): Promise<IndexSummary> {
    const memory = this.memory();
    if (!isIndexTarget(memory)) {
      throw new JarvisError({
        code: 'invalid_argument',
        message: `The '${this.config.memory.backend}' memory backend cannot index files (it has no replaceSource)`,
      });
    }
    return indexPath(memory, path, {
      chunkSize: this.config.memory.chunkSize,
      chunkOverlap: this.config.memory.chunkOverlap,
      ...options,
    });
  }

  /** The task scheduler (store opened on first use; not started: call `start()` to run due tasks). */
  scheduler(): TaskScheduler {
    this.#requireOpen();
    if (this.#scheduler !== undefined) return this.#scheduler;
    this.#schedulerStore = openConfiguredSchedulerStore(this.config);
    this.#scheduler = new TaskScheduler({
      store: this.#schedulerStore,
      runTask: (request) => this.runTask(request),
      bus: this.bus,
      concurrency: this.config.scheduler.concurrency,
      catchupWindowMs: this.config.scheduler.catchupWindowMs,
      minIntervalMs: this.config.scheduler.minIntervalMs,
      maxRunsPerTaskPerMinute: this.config.scheduler.maxRunsPerTaskPerMinute,
      ...(this.#options.clock === undefined ? {} : { clock: this.#options.clock }),
    });
    return this.#scheduler;
  }

  /** The one code interpreter (its sandbox is chosen once, on first use). */
  codeInterpreter(): CodeInterpreterTool {
    const settings = this.config.tools.codeInterpreter;
    this.#codeInterpreter ??= new CodeInterpreterTool({
      select: {
        backend: settings.backend as SandboxBackendChoice,
        pyodideSnapshotDir: join(this.config.home, 'cache', 'pyodide'),
        maxConcurrent: settings.maxConcurrent,
        allowUnsandboxed: settings.allowUnsandboxed,
        limits: { addressSpaceBytes: settings.memoryMb * 1024 * 1024 },
      },
    });
    return this.#codeInterpreter;
  }

  /** Names of every tool that can be asked for. */
  toolNames(): readonly string[] {
    return [...this.registries.tools.keys()].sort();
  }

  /** Names of every registered agent. */
  agentNames(): readonly string[] {
    return [...this.registries.agents.keys()].sort();
  }

  /**
   * The tools of the configured MCP servers (`[[mcp.servers]]`). The MCP SDK loads here, not at start-up, and
   * nothing connects until tools are asked for.
   */
  mcp(): Promise<McpToolSource> {
    this.#requireOpen();
    this.#mcp ??= import('../mcp/index.js').then(({ createMcpToolSource }) =>
      createMcpToolSource(this.config.mcp.servers),
    );
    return this.#mcp;
  }

  /** Every tool of every configured MCP server (connecting them); unreachable servers come back as warnings. */
  async mcpTools(signal?: AbortSignal): Promise<McpToolListing> {
    if (this.config.mcp.servers.length === 0) return { tools: [], warnings: [] };
    return (await this.mcp()).listTools(signal === undefined ? {} : { signal });
  }

  /**
   * Builds tools by name (tool objects pass through) with their dependencies; `engine` is what `llm` uses.
   * Names under an MCP server's prefix (`<server>.<tool>`) come from that server. Unknown names throw,
   * listing the available ones.
   */
  async buildTools(
    names: readonly (string | Tool)[],
    engine?: ResolvedEngine,
  ): Promise<readonly Tool[]> {
    this.#requireOpen();
    const deps = this.#toolDependencies(engine);
    const remote = await this.#remoteTools(names);
    const tools = names.map((name) => {
      if (typeof name !== 'string') return name;
      return (
        remote.get(name.trim()) ?? createRegisteredTool(name.trim(), this.registries.tools, deps)
      );
    });
    const duplicate = duplicateToolName(tools);
    if (duplicate !== undefined) {
      throw new JarvisError({
        code: 'invalid_argument',
        message: `Two tools are named '${duplicate}': each tool of a run needs its own name`,
      });
    }
    return tools;
  }

  /** Refuses unknown tool names before anything is opened (a typo should not wait for engine discovery). */
  #checkToolNames(names: readonly (string | Tool)[]): void {
    const prefixes = this.config.mcp.servers.map((server) => server.prefix);
    for (const name of names) {
      if (typeof name !== 'string') continue;
      const key = name.trim();
      if (this.registries.tools.contains(key)) continue;
      if (prefixes.some((prefix) => key.startsWith(prefix) && key !== prefix)) continue;
      throw unknownToolError(key, this.registries.tools.keys());
    }
  }

  /** The MCP tools among `names` (those not registered locally and under a server's prefix). */
  async #remoteTools(names: readonly (string | Tool)[]): Promise<Map<string, Tool>> {
    if (this.config.mcp.servers.length === 0) return new Map();
    const source = await this.mcp();
    const wanted = names
      .filter((name): name is string => typeof name === 'string')
      .map((name) => name.trim())
      .filter(
        (name) => !this.registries.tools.contains(name) && source.ownerOf(name) !== undefined,
      );
    if (wanted.length === 0) return new Map();
    const found = await source.tools(wanted);
    const missing = found.unresolved[0];
    if (missing !== undefined) {
      const server = source.ownerOf(missing)?.name ?? '?';
      const why = found.warnings.map((warning) => `${warning.server}: ${warning.message}`);
      throw new NoSuchToolError({
        toolName: missing,
        availableTools: [
          ...this.registries.tools.keys(),
          ...found.tools.map((tool) => tool.spec.name),
        ],
        message: `Unknown tool '${missing}': MCP server '${server}' does not offer it${why.length > 0 ? ` (${why.join('; ')})` : ''}`,
      });
    }
    return new Map(found.tools.map((tool) => [tool.spec.name, tool]));
  }

  #toolDependencies(engine: ResolvedEngine | undefined): ToolDependencies {
    return {
      config: this.config,
      engine,
      memory: () => this.memory(),
      scheduler: () => this.scheduler(),
      codeInterpreter: () => this.codeInterpreter(),
      env: this.#options.env ?? process.env,
    };
  }

  /** Chooses the engine, tools and agent of one question and builds its context. */
  async prepare(query: string, request: RunRequest = {}): Promise<PreparedRun> {
    const wanted = requestedTools(request, this.config);
    const agentName = chooseAgentName(request, this.config, wanted);
    checkRunnableAgent(agentName, this.registries.agents);
    if (agentName === 'simple' && wanted.length > 0) {
      throw new JarvisError({
        code: 'invalid_argument',
        message:
          "The 'simple' agent does not call tools: use --agent orchestrator (or native_react) with --tools, " +
          'or leave out the agent so the orchestrator is chosen',
      });
    }
    this.#checkToolNames(wanted);
    const engine = await this.engine(request.signal);
    const tools = await this.buildTools(wanted, engine);
    const agent = createRegisteredAgent(agentName, this.registries.agents, {
      engine: engine.engine,
      model: engine.model,
      tools,
      bus: this.bus,
      temperature: request.temperature ?? this.config.agent.temperature,
      maxTokens: request.maxTokens ?? this.config.agent.maxTokens,
      maxTurns: request.maxTurns ?? this.config.agent.maxTurns,
      systemPrompt: request.systemPrompt ?? this.config.agent.systemPrompt,
      confirm: this.#options.confirm,
      clock: this.#options.clock,
    });
    const context = await buildRunContext(
      query,
      request,
      this.config,
      this.memoryIfPresent(),
      this.bus,
    );
    return { agent, agentName, context, engine, tools };
  }

  /** Runs one question to its answer. */
  async run(query: string, request: RunRequest = {}): Promise<SystemRunResult> {
    const prepared = await this.prepare(query, request);
    const result = await prepared.agent.run(query, prepared.context, agentRunOptions(request));
    return {
      result,
      agentName: prepared.agentName,
      engineKey: prepared.engine.key,
      model: prepared.engine.model,
    };
  }

  /** Runs one question and yields the agent's progress; agents without streaming yield just the result. */
  async *stream(query: string, request: RunRequest = {}): AsyncGenerator<AgentStreamEvent> {
    const prepared = await this.prepare(query, request);
    if (prepared.agent.stream !== undefined) {
      yield* prepared.agent.stream(query, prepared.context, agentRunOptions(request));
      return;
    }
    const result = await prepared.agent.run(query, prepared.context, agentRunOptions(request));
    yield { type: 'result', result };
  }

  /** How the scheduler runs a task: the prompt with the task's agent and tools; the answer text. */
  async runTask(request: RunTaskRequest): Promise<string> {
    const { result } = await this.run(request.prompt, {
      agent: request.agent === '' ? undefined : request.agent,
      tools: request.tools,
      signal: request.signal,
    });
    return result.content;
  }

  /** Stops the scheduler and closes the engine and every store; safe to call more than once. */
  close(): Promise<void> {
    this.#closing ??= this.#closeAll();
    return this.#closing;
  }

  async #closeAll(): Promise<void> {
    const failures: unknown[] = [];
    const attempt = async (step: () => unknown) => {
      try {
        await step();
      } catch (error) {
        failures.push(error);
      }
    };
    await attempt(() => this.#scheduler?.stop());
    await attempt(() => this.#schedulerStore?.close());
    await attempt(async () => (await this.#engine?.catch(() => undefined))?.engine.close());
    await attempt(() => this.#memory?.close());
    await attempt(async () => (await this.#tracing?.catch(() => undefined))?.close());
    await attempt(() => this.#telemetry?.close());
    await attempt(() => this.#sessions?.close());
    await attempt(async () => (await this.#mcp)?.close());
    if (failures.length > 0) {
      throw new JarvisError({
        code: 'close_failed',
        message: `Closing failed: ${failures.map(String).join('; ')}`,
        cause: failures[0],
      });
    }
  }

  #requireOpen(): void {
    if (this.#closing !== undefined)
      throw new JarvisError({ code: 'closed', message: 'This Jarvis system was closed' });
  }
}

function isIndexTarget(memory: MemoryBackend): memory is MemoryBackend & IndexTarget {
  const candidate = memory as Partial<IndexTarget>;
  return (
    typeof candidate.replaceSource === 'function' && typeof candidate.sourceMetadata === 'function'
  );
}

/** Builds the system from a config; nothing is opened until it is used. */
export function buildSystem(options: BuildSystemOptions): JarvisSystem {
  return new JarvisSystem(options);
}
