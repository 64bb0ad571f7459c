import { type AgentStreamEvent, type InferenceEngine, JarvisError } from '../core/index.js';
import {
  type BuildSystemOptions,
  buildSystem,
  type ConfigWarning,
  importModules,
  type JarvisConfig,
  type JarvisSystem,
  loadConfig,
} from '../system/index.js';
import { type AskOptions, type AskResult, requireQuery, toAskResult } from './ask-result.js';
import { MemoryHandle } from './memory-handle.js';
import { SessionHandle } from './session-handle.js';

/**
 * Options of `new Jarvis()`, all optional: those of `buildSystem` (with `engine` an engine key or a ready
 * engine), plus where the config and the modules that register custom tools and agents come from.
 */
export interface JarvisOptions extends Omit<BuildSystemOptions, 'config' | 'engine' | 'engineKey'> {
  /** A config object (e.g. from `loadConfig`); otherwise the config file is read on first use. */
  readonly config?: JarvisConfig;
  /** The config file to read (default `$OPENJARVIS_CONFIG`, else `~/.openjarvis/config.toml`). */
  readonly configPath?: string;
  /** An engine key (`ollama`, `vllm`, `openai`, …) or a ready engine object. */
  readonly engine?: string | InferenceEngine;
  /** Modules imported before the first question so their tools and agents register (besides config `imports`). */
  readonly imports?: readonly string[];
  /** Folder relative paths are resolved against (default `process.cwd()`). */
  readonly cwd?: string;
}

/**
 * The OpenJarvis SDK: `await new Jarvis().ask('What is 15% of 340?', { tools: ['calculator'] })`. The config,
 * engine and stores are opened on first use; `close()` releases them.
 */
export class Jarvis {
  readonly memory: MemoryHandle;
  readonly #options: JarvisOptions;
  #system: Promise<JarvisSystem> | undefined;
  #warnings: readonly ConfigWarning[] = [];
  #closed = false;

  constructor(options: JarvisOptions = {}) {
    this.#options = options;
    this.memory = new MemoryHandle(() => this.system());
  }

  /** The composed system (config read and validated on first use). */
  system(): Promise<JarvisSystem> {
    if (this.#closed) return Promise.reject(closedError());
    this.#system ??= this.#build();
    this.#system.catch(() => {
      this.#system = undefined;
    });
    return this.#system;
  }

  /** Problems in the config file that did not stop it from loading (unknown keys). */
  get warnings(): readonly ConfigWarning[] {
    return this.#warnings;
  }

  async #build(): Promise<JarvisSystem> {
    const options = this.#options;
    const config = options.config ?? (await this.#loadConfig());
    await importModules(
      [...config.imports, ...(options.imports ?? [])],
      options.cwd ?? process.cwd(),
    );
    return buildSystem(systemOptions(options, config));
  }

  async #loadConfig(): Promise<JarvisConfig> {
    const loaded = await loadConfig({
      ...(this.#options.configPath === undefined ? {} : { configPath: this.#options.configPath }),
      ...(this.#options.env === undefined ? {} : { env: this.#options.env }),
      ...(this.#options.cwd === undefined ? {} : { cwd: this.#options.cwd }),
    });
    this.#warnings = loaded.warnings;
    return loaded.config;
  }

  /** Asks one question and returns the answer text. */
  async ask(query: string, options: AskOptions = {}): Promise<string> {
    return (await this.askFull(query, options)).content;
  }

  /** Asks one question and returns the answer with turns, tool results, usage, model, engine and metadata. */
  async askFull(query: string, options: AskOptions = {}): Promise<AskResult> {
    const system = await this.system();
    return toAskResult(await system.run(requireQuery(query), options));
  }

  /** Asks one question and yields the agent's events as they happen; the last one is the `result`. */
  async *stream(query: string, options: AskOptions = {}): AsyncGenerator<AgentStreamEvent> {
    const system = await this.system();
    yield* system.stream(requireQuery(query), options);
  }

  /**
   * A conversation: the session with this id or name (a new name starts one with it), or a new unnamed session.
   * Each `ask` adds a turn; earlier turns go to the model as history, fitted to its context.
   */
  session(idOrName?: string): SessionHandle {
    return new SessionHandle(() => this.system(), idOrName);
  }

  /** Closes the engine, the stores and the scheduler; safe to call more than once. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const system = await this.#system?.catch(() => undefined);
    await system?.close();
  }
}

/** The `buildSystem` options of a Jarvis: its own options with the engine as a key or an object. */
function systemOptions(options: JarvisOptions, config: JarvisConfig): BuildSystemOptions {
  const {
    engine,
    config: _config,
    configPath: _path,
    imports: _imports,
    cwd: _cwd,
    ...shared
  } = options;
  return {
    ...shared,
    config,
    ...(typeof engine === 'string' ? { engineKey: engine } : { engine }),
  };
}

function closedError(): JarvisError {
  return new JarvisError({ code: 'closed', message: 'This Jarvis was closed; create a new one' });
}
