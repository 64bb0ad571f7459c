import type { Context } from 'hono';
import type { JarvisSystem } from '../system/index.js';
import { runFailure } from './chat-run.js';
import { ApiError } from './openai-error.js';
import { hostRefusal } from './request-guards.js';
import { RunSlots } from './run-slots.js';
import {
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_CONCURRENT_RUNS,
  DEFAULT_REQUEST_TIMEOUT_MS,
  type JarvisServerOptions,
} from './server-options.js';

/**
 * What the routes share: the options with their defaults, the run slots, the Host check, and the system and
 * the model it serves, each kept once known so that a request finds them without waiting.
 */
export class ServerState {
  readonly options: JarvisServerOptions;
  readonly slots: RunSlots;
  readonly maxBodyBytes: number;
  readonly requestTimeoutMs: number;
  /** The 403 of a request whose `Host` is not allowed (see `hostRefusal`), else `undefined`. */
  readonly refuseHost: (c: Context) => ApiError | undefined;
  readonly #source: () => Promise<JarvisSystem>;
  #system: JarvisSystem | undefined;
  #model: string | undefined;

  constructor(options: JarvisServerOptions) {
    this.options = options;
    this.slots = new RunSlots(options.maxConcurrentRuns ?? DEFAULT_MAX_CONCURRENT_RUNS);
    this.maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    this.requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.refuseHost = hostRefusal(options.allowedHosts);
    this.#source = systemSource(options);
    this.#system = options.system;
    this.#model = options.model;
  }

  /** The system, once it is known (then without waiting). */
  get knownSystem(): JarvisSystem | undefined {
    return this.#system;
  }

  /** The system answering requests (the SDK's is built on first use). */
  async system(): Promise<JarvisSystem> {
    if (this.#system !== undefined) return this.#system;
    const system = await this.#source();
    this.#system = system;
    return system;
  }

  /** The model id requests must name, once it is known (then without waiting). */
  get knownModel(): string | undefined {
    return this.#model;
  }

  /** The model id requests must name: the configured one, else the engine's (an engine failure as an API error). */
  async servedModel(): Promise<string> {
    if (this.#model !== undefined) return this.#model;
    try {
      // The system keeps its engine once resolved, so its model is the same for every later request.
      this.#model = (await (await this.system()).engine()).model;
      return this.#model;
    } catch (error) {
      throw runFailure(error, this.redact);
    }
  }

  /** The system's redactor; before the system is known, long tokens (key-like) are hidden. */
  get redact(): (text: string) => string {
    return this.#system?.redact ?? hideLongTokens;
  }

  /** The 429 of a request over the run limit, with `Retry-After`. */
  busy(): ApiError {
    const seconds = String(this.options.retryAfterSeconds ?? 1);
    return new ApiError({
      status: 429,
      type: 'rate_limit_error',
      code: 'too_many_runs',
      message: `The server is already running ${this.slots.limit} requests; retry after ${seconds} s`,
      headers: { 'Retry-After': seconds },
    });
  }
}

function systemSource(options: JarvisServerOptions): () => Promise<JarvisSystem> {
  const { system, jarvis } = options;
  if (system !== undefined) return () => Promise.resolve(system);
  if (jarvis !== undefined) return () => jarvis.system();
  throw new TypeError('createJarvisServer needs a `system` or a `jarvis`');
}

function hideLongTokens(text: string): string {
  return text.replace(/\S{32,}/g, '[redacted]');
}
