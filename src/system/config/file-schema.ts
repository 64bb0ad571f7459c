import * as z from 'zod/mini';
import { TOOL_CALL_FORMAT_NAMES } from '../../engine/index.js';
import { ENGINE_KEYS } from '../engine-keys.js';
import { mcpSection } from './mcp-schema.js';
import {
  choice,
  ENGINE_KEY_PATTERN,
  expecting,
  flag,
  host,
  isTable,
  NAME_RULE,
  nameList,
  number,
  once,
  stringList,
  stringMap,
  table,
  text,
  url,
  wholeNumber,
} from './values.js';

/** How a key of the schema relates to the upstream (Python) OpenJarvis schema. */
export interface KeyNote {
  /** `alias`: read as an alternative to one of our keys; `ignored`: accepted with a warning, not used. */
  readonly upstream: 'alias' | 'ignored';
  /** Appended to the "is ignored" warning. */
  readonly advice?: string;
}

/** The notes of the schema's upstream keys; keys without a note are our own (the starter config documents them). */
export const keyNotes = z.registry<KeyNote>();

/** An optional key that the upstream schema names for one of ours. */
function alias<T extends z.core.$ZodType>(schema: T): z.ZodMiniOptional<T> {
  const optional = z.optional(schema);
  keyNotes.add(optional as z.core.$ZodType, { upstream: 'alias' });
  return optional;
}

/** An upstream key this port does not use: any value, with a warning that it is ignored. */
function ignored(advice = '') {
  return z.optional(z.unknown()).register(keyNotes, { upstream: 'ignored', advice });
}

/** Engine keys the config file and `OPENJARVIS_ENGINE` accept. */
export const ENGINE_KEY_RULE = {
  pattern: {
    regex: ENGINE_KEY_PATTERN,
    description: `an engine key (${ENGINE_KEYS.join(', ')}, or one a module in imports registers)`,
  },
} as const;

/** An engine key: lowercase letters, digits, `_` and `-`. */
export const engineKey = once(() => text(ENGINE_KEY_RULE));

/** True for the built-in engine keys. */
export function isBuiltinEngine(key: string): boolean {
  return (ENGINE_KEYS as readonly string[]).includes(key);
}

/** True for an `[engine.<key>]` table of an engine a module registers (not built in, a valid key). */
export function isCustomEngineTable(key: string, value: unknown): boolean {
  return isTable(value) && ENGINE_KEY_PATTERN.test(key) && !isBuiltinEngine(key);
}

/** `[engine.<key>]` of an engine that is not built in: its server address. */
export const customEngineTable = once(() => table({ host: z.optional(url()) }));

/**
 * The server addresses of the `[engine.<key>]` tables of engines that are not built in, completed as `url()`
 * completes them, in the order of the file (what `buildConfig` adds after the built-in engines' hosts).
 */
export function customEngineHosts(engine: Readonly<Record<string, unknown>> | undefined) {
  const hosts: Record<string, string> = {};
  for (const [key, value] of Object.entries(engine ?? {})) {
    if (!isCustomEngineTable(key, value)) continue;
    const host = customEngineTable().parse(value).host;
    if (host !== undefined) hosts[key] = host;
  }
  return hosts;
}

function serverTable(key: string) {
  return z.optional(table({ host: z.optional(host(key)) }));
}

/** `[engine]` and `[engine.<key>]`, with the upstream flat `<key>_host` keys. */
function engineSection() {
  return table(
    {
      default: z.optional(engineKey()),
      model: z.optional(text()),
      timeout_seconds: z.optional(number({ min: 0, exclusiveMin: true })),
      tool_call_format: z.optional(choice(TOOL_CALL_FORMAT_NAMES as [string, ...string[]])),
      ollama_host: alias(host('ollama')),
      vllm_host: alias(host('vllm')),
      llamacpp_host: alias(host('llamacpp')),
      llamacpp_path: ignored(),
      ollama: serverTable('ollama'),
      vllm: serverTable('vllm'),
      llamacpp: z.optional(table({ host: z.optional(host('llamacpp')), binary_path: ignored() })),
      sglang: serverTable('sglang'),
      lmstudio: serverTable('lmstudio'),
      openai: z.optional(table({ host: z.optional(url()), api_key: z.optional(text()) })),
      embedded: z.optional(
        table({
          model_path: z.optional(text()),
          models_dir: z.optional(text()),
          gpu: z.optional(flag()),
          threads: z.optional(wholeNumber({ min: 1 })),
          context_size: z.optional(wholeNumber({ min: 1 })),
          chat_wrapper: z.optional(text()),
        }),
      ),
    },
    z.superRefine(checkCustomEngines, { when: () => true }),
  );
}

/** Checks the host of every `[engine.<key>]` table of an engine that is not built in. */
function checkCustomEngines(engine: Record<string, unknown>, context: z.core.$RefinementCtx): void {
  for (const [key, value] of Object.entries(engine)) {
    if (!isCustomEngineTable(key, value)) continue;
    for (const issue of customEngineTable().safeParse(value).error?.issues ?? []) {
      context.addIssue({ ...issue, code: 'custom', path: [key, ...issue.path] });
    }
  }
}

/** `[intelligence]` of the upstream schema: engine, model and sampling defaults. */
function intelligenceSection() {
  return table({
    preferred_engine: z.optional(engineKey()),
    default_model: z.optional(text()),
    model_path: z.optional(text()),
    temperature: z.optional(number({ min: 0, max: 2 })),
    max_tokens: z.optional(wholeNumber({ min: 1 })),
    fallback_model: ignored(),
    checkpoint_path: ignored(),
    quantization: ignored(),
    provider: ignored(),
    top_p: ignored(),
    top_k: ignored(),
    repetition_penalty: ignored(),
    stop_sequences: ignored(),
  });
}

function agentSection() {
  return table({
    default_agent: z.optional(text(NAME_RULE)),
    max_turns: z.optional(wholeNumber({ min: 1 })),
    temperature: z.optional(number({ min: 0, max: 2 })),
    max_tokens: z.optional(wholeNumber({ min: 1 })),
    system_prompt: z.optional(text()),
    tools: z.optional(nameList()),
    default_tools: alias(nameList()),
    context_from_memory: alias(flag()),
    objective: ignored(),
    system_prompt_path: ignored(),
  });
}

/** `[memory]` and its upstream twin `[tools.storage]`, with the upstream `context_*` names. */
function memoryShape() {
  return {
    backend: z.optional(text(NAME_RULE)),
    default_backend: alias(text(NAME_RULE)),
    db_path: z.optional(text()),
    context_injection: z.optional(flag()),
    top_k: z.optional(wholeNumber({ min: 1, max: 50 })),
    context_top_k: alias(wholeNumber({ min: 1, max: 50 })),
    min_score: z.optional(number()),
    context_min_score: alias(number()),
    max_context_tokens: z.optional(wholeNumber({ min: 1 })),
    context_max_tokens: alias(wholeNumber({ min: 1 })),
    chunk_size: z.optional(wholeNumber({ min: 1 })),
    chunk_overlap: z.optional(wholeNumber({ min: 0 })),
  };
}

/** The `[tools.web_search] provider` values. */
export const WEB_SEARCH_PROVIDERS = ['duckduckgo', 'searxng', 'tavily', 'brave'] as const;

/** The `[tools.code_interpreter] backend` values. */
export const CODE_INTERPRETER_BACKENDS = ['auto', 'bwrap', 'pyodide'] as const;

function toolsSection() {
  return table({
    file_read: z.optional(
      table({ allowed_dirs: z.optional(stringList()), allow_secret_files: z.optional(flag()) }),
    ),
    web_search: z.optional(
      table({ provider: z.optional(choice(WEB_SEARCH_PROVIDERS)), base_url: z.optional(url()) }),
    ),
    code_interpreter: z.optional(
      table({
        backend: z.optional(choice(CODE_INTERPRETER_BACKENDS)),
        max_concurrent: z.optional(wholeNumber({ min: 1 })),
        memory_mb: z.optional(wholeNumber({ min: 1 })),
        allow_unsandboxed: z.optional(flag()),
      }),
    ),
    enabled: alias(nameList()),
    storage: alias(table(memoryShape())),
    mcp: ignored('; list external MCP servers as [[mcp.servers]] instead'),
  });
}

function schedulerSection() {
  return table({
    db_path: z.optional(text()),
    concurrency: z.optional(wholeNumber({ min: 1 })),
    catchup_window_seconds: z.optional(number({ min: 0 })),
    min_interval_seconds: z.optional(number({ min: 0, exclusiveMin: true })),
    max_runs_per_task_per_minute: z.optional(wholeNumber({ min: 1 })),
    enabled: ignored(),
    poll_interval: ignored(),
  });
}

function sessionsSection() {
  return table({
    db_path: z.optional(text()),
    context_tokens: z.optional(wholeNumber({ min: 512 })),
    answer_tokens: z.optional(wholeNumber({ min: 16 })),
  });
}

/** The `[storage] backend` values: where the durable stores keep their data. */
export const STORAGE_BACKENDS = ['sqlite', 'postgres'] as const;

const DATABASE_URL_EXPECTED =
  'a PostgreSQL URL such as "postgres://user:password@host:5432/database"';

/** True for a `postgres://` or `postgresql://` URL that names a host (or a `host=` socket folder). */
function isDatabaseUrl(value: string): boolean {
  try {
    const parsed = new URL(value);
    const scheme = parsed.protocol === 'postgres:' || parsed.protocol === 'postgresql:';
    return scheme && (parsed.hostname !== '' || parsed.searchParams.has('host'));
  } catch {
    return false;
  }
}

/**
 * A PostgreSQL URL (`[storage] url`, `OPENJARVIS_DATABASE_URL`), trimmed; blank counts as not set. It holds a
 * password, so a wrong value is never echoed.
 */
export const databaseUrl = once(() =>
  z.pipe(
    z.string(expecting(DATABASE_URL_EXPECTED)),
    z.transform((value, context) => {
      const trimmed = value.trim();
      if (trimmed === '' || isDatabaseUrl(trimmed)) return trimmed === '' ? undefined : trimmed;
      context.issues.push({
        code: 'custom',
        input: '(not shown: it may hold a password)',
        message: `expected ${DATABASE_URL_EXPECTED}, got a value that is not one (not shown: it may hold a password)`,
      });
      return z.NEVER;
    }),
  ),
);

function storageSection() {
  return table({
    backend: z.optional(choice(STORAGE_BACKENDS)),
    url: z.optional(databaseUrl()),
    pool_size: z.optional(wholeNumber({ min: 1, max: 1000 })),
    connect_timeout_ms: z.optional(wholeNumber({ min: 1 })),
    // PostgreSQL's statement_timeout is an int of milliseconds.
    statement_timeout_ms: z.optional(wholeNumber({ min: 1, max: 2_147_483_647 })),
  });
}

/** An HTTP header name (RFC 9110 token). */
const OTLP_HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

function telemetrySection() {
  return table({
    enabled: z.optional(flag()),
    db_path: z.optional(text()),
    trace_max_runs: z.optional(wholeNumber({ min: 0 })),
    trace_text_chars: z.optional(wholeNumber({ min: 16 })),
    otlp_endpoint: z.optional(url()),
    otlp_headers: z.optional(stringMap(OTLP_HEADER_NAME, 'Header-Name')),
    gpu_metrics: ignored(),
    gpu_poll_interval_ms: ignored(),
  });
}

/**
 * The config file as TOML holds it (snake_case keys, values checked and normalised: text trimmed, blank text
 * unset, addresses completed), with the upstream Python schema's keys as aliases or ignored keys. Built on first
 * use, like every schema of the config: building them costs more than the rest of importing the package's root.
 */
export const fileSchema = once(() =>
  z
    .looseObject({
      imports: z.optional(stringList()),
      engine: z.optional(engineSection()),
      intelligence: alias(intelligenceSection()),
      agent: z.optional(agentSection()),
      memory: z.optional(table(memoryShape())),
      tools: z.optional(toolsSection()),
      scheduler: z.optional(schedulerSection()),
      sessions: z.optional(sessionsSection()),
      storage: z.optional(storageSection()),
      telemetry: z.optional(telemetrySection()),
      mcp: z.optional(mcpSection()),
      security: ignored(),
      learning: ignored(),
      server: ignored(),
      traces: ignored(),
      sandbox: ignored(),
      channel: ignored(),
    })
    .check(z.superRefine(checkChunking, { when: () => true })),
);

/** The config file after `fileSchema`. */
export type ConfigFile = z.output<ReturnType<typeof fileSchema>>;

/** `chunk_overlap` must be smaller than `chunk_size`, wherever each is written ([memory] or [tools.storage]). */
function checkChunking(file: Record<string, unknown>, context: z.core.$RefinementCtx): void {
  const tables = [
    { path: ['memory'], values: file.memory },
    { path: ['tools', 'storage'], values: isTable(file.tools) ? file.tools.storage : undefined },
  ];
  const size = firstValid(tables, 'chunk_size', wholeNumber({ min: 1 }));
  const overlap = firstValid(tables, 'chunk_overlap', wholeNumber({ min: 0 }));
  const chunkSize = size?.value ?? 512;
  if (overlap === undefined || overlap.value < chunkSize) return;
  context.addIssue({
    code: 'custom',
    input: overlap.value,
    path: overlap.path,
    message: `expected a whole number smaller than chunk_size (${chunkSize}), got ${overlap.value}`,
  });
}

/** The first valid value of `key` in the tables, first table first, and where it is written. */
function firstValid(
  tables: readonly { readonly path: readonly string[]; readonly values: unknown }[],
  key: string,
  schema: z.ZodMiniType<number>,
): { readonly value: number; readonly path: string[] } | undefined {
  for (const { path, values } of tables) {
    if (!isTable(values) || values[key] === undefined) continue;
    const parsed = schema.safeParse(values[key]);
    if (parsed.success) return { value: parsed.data, path: [...path, key] };
  }
  return undefined;
}
