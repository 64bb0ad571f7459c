/**
 * Every code a `JarvisError` (or a subclass) is thrown with, by area: a closed list, so a new code is added
 * here or does not compile. Callers branch on these, never on message text.
 */
export const JARVIS_ERROR_CODES = {
  /** Misuse of any API and lifecycle mistakes. */
  core: ['invalid_argument', 'closed', 'close_failed'],
  /** `Registry` lookups and registrations. */
  registry: ['registry_duplicate_key', 'registry_missing_key', 'registry_not_callable'],
  /** Defining, registering and naming tools. */
  tools: ['invalid_tool_definition', 'invalid_tool', 'unknown_tool'],
  /** The web tools (fetch, search) and their address checks. */
  web: [
    'ssrf_refused',
    'dns_failed',
    'http_unsupported_encoding',
    'web_fetch_failed',
    'web_search_provider_error',
  ],
  /** A call to an inference engine failed (`EngineError`). */
  engine: [
    'engine_unavailable',
    'engine_http_error',
    'engine_timeout',
    'engine_cancelled',
    'engine_protocol_error',
    'engine_stream_cut',
    'engine_not_found',
    'engine_model_error',
  ],
  /** Choosing and building an engine. */
  engineSetup: ['unknown_engine', 'invalid_engine', 'model_not_found'],
  /** Downloading a model file (`jarvis models pull`, `ModelPullError`). */
  models: [
    'model_pull_failed',
    'model_access_denied',
    'model_checksum_mismatch',
    'model_disk_full',
    'model_pull_cancelled',
  ],
  /** A run that could not finish (`AgentError`). */
  agent: [
    'agent_cancelled',
    'agent_engine_failed',
    'agent_runtime_failed',
    'agent_not_implemented',
  ],
  /** Choosing and building an agent, and the OpenClaw runtime's wire. */
  agentSetup: [
    'unknown_agent',
    'invalid_agent',
    'openclaw_transport_failed',
    'openclaw_protocol_error',
  ],
  /** Memory backends and the SQLite memory store. */
  memory: [
    'invalid_memory',
    'memory_closed',
    'memory_database_corrupt',
    'memory_fts5_unavailable',
    'memory_query_failed',
  ],
  /** The telemetry store. */
  telemetry: ['telemetry_store_closed', 'telemetry_exporter_missing'],
  /** A refused scheduler operation (`SchedulerError`). */
  scheduler: [
    'invalid_schedule',
    'invalid_task',
    'task_not_found',
    'invalid_transition',
    'task_running',
    'tools_not_allowed',
    'scheduler_unavailable',
  ],
  /** Conversation sessions and their store. */
  sessions: ['session_not_found', 'sessions_store_closed'],
  /** A PostgreSQL database behind the durable stores (`StorageError`). */
  storage: [
    'storage_invalid_url',
    'storage_driver_missing',
    'storage_unavailable',
    'storage_query_failed',
    'storage_schema_incompatible',
    'storage_closed',
  ],
  /** Finding, reading, checking and writing the config file. */
  config: [
    'config_not_found',
    'config_unreadable',
    'config_unwritable',
    'config_exists',
    'config_invalid',
  ],
  /** MCP servers, as a client (`mcp_<kind>` of `McpConnectionError`) and as a server. */
  mcp: [
    'invalid_mcp_server',
    'mcp_listen_failed',
    'mcp_server_closed',
    'mcp_connect_failed',
    'mcp_connection_lost',
    'mcp_timed_out',
    'mcp_cancelled',
    'mcp_remote_error',
    'mcp_closed',
    'mcp_sdk_missing',
  ],
  /** The scripted engine of `openjarvis/testing`. */
  testing: ['scripted_engine_unexpected_call', 'scripted_engine_unconsumed_replies'],
} as const;

/** The areas `JARVIS_ERROR_CODES` groups codes by. */
export type JarvisErrorArea = keyof typeof JARVIS_ERROR_CODES;

/** The codes of one area of `JARVIS_ERROR_CODES`. */
export type ErrorCodeOf<Area extends JarvisErrorArea> = (typeof JARVIS_ERROR_CODES)[Area][number];

/** The stores that keep a SQLite file and name it in their `<store>_database_*` codes. */
export const DATABASE_STORES = ['memory', 'telemetry', 'scheduler', 'sessions'] as const;

/** A store that keeps a SQLite file. */
export type DatabaseStore = (typeof DATABASE_STORES)[number];

/** A store's SQLite file could not be opened, or is not the store's database. */
export type DatabaseErrorCode =
  | `${DatabaseStore}_database_unreadable`
  | `${DatabaseStore}_database_incompatible`;

/** Machine-readable reasons a `JarvisError` is thrown: the union of every area's list and the database codes. */
export type JarvisErrorCode = ErrorCodeOf<JarvisErrorArea> | DatabaseErrorCode;

/** Machine-readable reasons an engine call failed. */
export type EngineErrorCode = ErrorCodeOf<'engine'>;

/** Why a run failed. */
export type AgentErrorCode = ErrorCodeOf<'agent'>;

/** Why a scheduler operation was refused; programs branch on this, people read the message. */
export type SchedulerErrorCode = ErrorCodeOf<'scheduler'>;

/** Why a tool call failed (`ToolResult.errorCode`, not thrown); the model reads `content`, programs branch on this. */
export const TOOL_ERROR_CODES = [
  'unknown_tool',
  'invalid_arguments',
  'confirmation_required',
  'confirmation_denied',
  'timed_out',
  'cancelled',
  'execution_failed',
  'tool_error',
  'too_many_calls',
  'repeated_call',
] as const;

/** Why a tool call failed; the model reads `content`, programs branch on this. */
export type ToolErrorCode = (typeof TOOL_ERROR_CODES)[number];

const ALL_LISTED: ReadonlySet<string> = new Set(Object.values(JARVIS_ERROR_CODES).flat());

/** True when `value` is one of the listed `JarvisErrorCode`s (for codes read back from JSON or another process). */
export function isJarvisErrorCode(value: unknown): value is JarvisErrorCode {
  if (typeof value !== 'string') return false;
  if (ALL_LISTED.has(value)) return true;
  return DATABASE_STORES.some(
    (store) =>
      value === `${store}_database_unreadable` || value === `${store}_database_incompatible`,
  );
}
