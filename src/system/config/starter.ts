import { constants } from 'node:fs';
import { copyFile, link, lstat, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { describeError, JarvisError } from '../../core/index.js';

/**
 * The commented config file `jarvis init` writes. Every setting is commented out and shows its default (or an
 * example where there is none), so the file loads with no warnings and changes nothing until edited.
 */
export const STARTER_CONFIG = `# OpenJarvis configuration.
#
# Every setting below is commented out and shows its default (or, where there is none, an example).
# Remove the leading "# " of a line to change it. "~" means your home folder; relative database and
# model paths are relative to the OpenJarvis home folder (~/.openjarvis, or OPENJARVIS_HOME).
#
# Environment variables override this file: OPENJARVIS_ENGINE, OPENJARVIS_MODEL, OLLAMA_HOST,
# OPENAI_BASE_URL and OPENAI_API_KEY. Command-line flags override both.
# Config files of the Python OpenJarvis are read too ([intelligence], [tools.storage], default_tools,
# ollama_host, ...); sections this version does not use give a warning, not an error.

# Modules imported at start-up so that their tools, agents and engines register themselves:
# package names, or paths (relative paths are relative to the folder of this file).
# imports = ["./my-tools.js"]

[engine]
# Engine key: ollama, vllm, llamacpp, sglang, lmstudio, openai, embedded (or one an import registers).
# Unset: the first engine found running.
# default = "ollama"
# Model name. Unset: the engine's first model.
# model = "llama3.2"
# Per-request timeout of the HTTP engines, in seconds. Unset: each engine's own.
# timeout_seconds = 120
# The format a model writes tool calls in as text, when its name does not tell (qwen3-coder, glm-4.5, hermes,
# deepseek-v3.1, kimi-k2, gpt-oss, functionary-v3.2, ...). Unset: chosen from the model's name.
# tool_call_format = "qwen3-coder"

# Server addresses of the engines (these are the defaults).
[engine.ollama]
# host = "http://127.0.0.1:11434"

[engine.vllm]
# host = "http://127.0.0.1:8000"

[engine.llamacpp]
# host = "http://127.0.0.1:8080"

[engine.sglang]
# host = "http://127.0.0.1:30000"

[engine.lmstudio]
# host = "http://127.0.0.1:1234"

[engine.openai]
# Any OpenAI-compatible server; used only when a host (or OPENAI_BASE_URL) is set.
# host = "https://api.openai.com/v1"
# api_key = "sk-..."

[engine.embedded]
# A GGUF model run in-process by node-llama-cpp. Unset: the first .gguf file in models_dir.
# model_path = "~/models/model.gguf"
# models_dir = "models"
# gpu = true               # offload to a GPU when one works
# threads = 8              # default: all cores
# context_size = 8192      # default: what fits in memory, at most the model's trained length
# chat_wrapper = "auto"    # the GGUF's own chat template; or a node-llama-cpp wrapper name

[agent]
# Agent used when none is named: simple, orchestrator, react, ... (or one an import registers).
# default_agent = "simple"
# Tool-calling turns before an agent stops (a whole number >= 1).
# max_turns = 10
# Sampling temperature, 0 to 2.
# temperature = 0.7
# Most tokens a reply may have (>= 1).
# max_tokens = 1024
# system_prompt = "You are a helpful assistant."
# Tools given to runs that name none: a list, or one comma-separated string. Default: none.
# tools = ["calculator", "think"]

[memory]
# backend = "sqlite"
# db_path = "memory.db"
# Add what memory finds about a question to it before asking the model.
# context_injection = true
# Results added (1 to 50), the lowest score they need, and their token budget.
# top_k = 5
# min_score = 0.0
# max_context_tokens = 2048
# Chunking of \`jarvis memory index\`, in tokens (the overlap smaller than the size).
# chunk_size = 512
# chunk_overlap = 64

[tools.file_read]
# Folders file_read may read; relative to the current folder. Default: the current folder (never "/":
# started in "/", file_read reads nothing until folders are listed here). /proc, /sys and /dev are never read.
# allowed_dirs = ["."]
# Also read well-known secret files (.env*, .ssh/, .aws/, *.pem, id_*, private keys, ...).
# allow_secret_files = false

[tools.web_search]
# duckduckgo, searxng, tavily or brave. Unset: SEARXNG_URL, TAVILY_API_KEY or BRAVE_API_KEY
# choose one; DuckDuckGo otherwise.
# provider = "duckduckgo"
# Address of your SearXNG server.
# base_url = "http://127.0.0.1:8888"

[tools.code_interpreter]
# Sandbox: auto, bwrap (bubblewrap) or pyodide.
# backend = "auto"
# Sandboxes running at once, and the memory limit of each in MiB.
# max_concurrent = 2
# memory_mb = 512
# Run code without isolation when no sandbox works (unsafe).
# allow_unsandboxed = false

[scheduler]
# db_path = "scheduler.db"
# Scheduled tasks running at once.
# concurrency = 4
# A task missed while OpenJarvis was not running still runs once if it is at most this late.
# catchup_window_seconds = 3600
# Shortest interval a person may schedule (tasks scheduled by an agent never get less than 1 second).
# min_interval_seconds = 1
# Runs of one task per minute; beyond it occurrences are recorded as skipped, not queued.
# max_runs_per_task_per_minute = 60

[sessions]
# Conversations of \`jarvis chat\` and \`jarvis ask --session\`.
# db_path = "sessions.db"
# The model's context window when the engine cannot tell; history beyond it is folded into a summary.
# context_tokens = 8192
# Tokens kept free for each answer when fitting the history.
# answer_tokens = 1024

[storage]
# Where sessions, memory, the scheduler and telemetry keep their data: "sqlite" (a file per store in the
# home folder) or "postgres" (one database several machines share).
# backend = "sqlite"
# The PostgreSQL database when backend = "postgres" (env OPENJARVIS_DATABASE_URL wins); it holds a password,
# so OpenJarvis never shows it.
# url = "postgres://user:password@127.0.0.1:5432/openjarvis"
# Connections per process, and how long opening one may take.
# pool_size = 10
# connect_timeout_ms = 10000
# The server cancels a statement that runs longer than this.
# statement_timeout_ms = 30000

[telemetry]
# Record inference and tool statistics (\`jarvis telemetry stats\`).
# enabled = true
# db_path = "telemetry.db"
# Traces of runs (\`jarvis telemetry runs\`, \`jarvis telemetry show <id>\`): runs kept, and characters kept
# of each tool argument, result and error.
# trace_max_runs = 1000
# trace_text_chars = 2000
# Also export every span over OTLP/HTTP (Jaeger, Langfuse, Phoenix); env OTEL_EXPORTER_OTLP_ENDPOINT too.
# otlp_endpoint = "http://127.0.0.1:4318"
# otlp_headers = { Authorization = "Bearer ..." }

# External MCP servers whose tools agents may use, one [[mcp.servers]] block each: a local process
# (command, args, env) or an HTTP server (url, headers). Names are letters, digits, _ and -, unique.
# Tool names get the prefix (default: the name and a dot).
# [[mcp.servers]]
# name = "files"
# command = "npx"
# args = ["-y", "@modelcontextprotocol/server-filesystem", "."]
# env = { LOG_LEVEL = "info" }
# prefix = "files."
# timeout_seconds = 60
#   For an HTTP server, instead of command, args and env:
#   url = "http://127.0.0.1:3000/mcp"
#   headers = { Authorization = "Bearer ..." }
`;

/** Options of `writeStarterConfig`. */
export interface WriteStarterConfigOptions {
  /** The file to write (absolute, as `configLocation` gives it); missing folders are created. */
  readonly path: string;
  /** Replace an existing file (`jarvis init --force`); without it an existing file is an error. */
  readonly force?: boolean;
}

/** What `writeStarterConfig` did. */
export interface WrittenStarterConfig {
  readonly path: string;
  /** True when an existing file was replaced (only with `force`). */
  readonly replaced: boolean;
}

/**
 * Writes `STARTER_CONFIG` to `path` with mode 0600, atomically (a temporary file, then a rename or link). Throws
 * `config_exists` when the file exists and `force` is not set, `config_unwritable` when it cannot be written.
 */
export async function writeStarterConfig(
  options: WriteStarterConfigOptions,
): Promise<WrittenStarterConfig> {
  const { path, force = false } = options;
  const existed = await exists(path);
  if (existed && !force) throw alreadyExists(path);
  const temporary = `${path}.${crypto.randomUUID()}.tmp`;
  let written = false;
  try {
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    await writeFile(temporary, STARTER_CONFIG, { mode: 0o600, flag: 'wx' });
    written = true;
    if (force) await rename(temporary, path);
    else await placeWithoutOverwriting(temporary, path);
  } catch (error) {
    if (JarvisError.isInstance(error)) throw error;
    throw new JarvisError({
      code: 'config_unwritable',
      message: `Cannot write the starter config to ${path}: ${describeError(error)}; choose another path with --config or OPENJARVIS_CONFIG`,
      cause: error,
    });
  } finally {
    if (written) await rm(temporary, { force: true });
  }
  return { path, replaced: existed };
}

/** Links the finished file into place, which fails if another file appeared there meanwhile. */
async function placeWithoutOverwriting(temporary: string, path: string): Promise<void> {
  try {
    await link(temporary, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw alreadyExists(path);
    // Some file systems have no hard links; an exclusive copy still never overwrites.
    try {
      await copyFile(temporary, path, constants.COPYFILE_EXCL);
    } catch (copyError) {
      if ((copyError as NodeJS.ErrnoException).code === 'EEXIST') throw alreadyExists(path);
      throw copyError;
    }
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}

function alreadyExists(path: string): JarvisError {
  return new JarvisError({
    code: 'config_exists',
    message: `${path} already exists; edit it, or run \`jarvis init --force\` to replace it with the starter config`,
  });
}
