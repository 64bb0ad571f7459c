import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JarvisError } from '../../core/index.js';
import { environmentSchema } from './env.js';
import { checkedConfig, configFromToml } from './from-toml.js';
import { indexKeyLines } from './lines.js';
import {
  type ConfigContext,
  configLocation,
  defaultConfig,
  ENVIRONMENT_OVERRIDES,
  loadConfig,
} from './load.js';
import { ConfigError, type ConfigProblem } from './problems.js';
import type { JarvisConfig } from './schema.js';

const HOME_DIR = '/home/tester';
const HOME = '/home/tester/.openjarvis';
const CWD = '/work/project';
const FILE = '/etc/jarvis/config.toml';
const CONTEXT: ConfigContext = { home: HOME, cwd: CWD, homeDir: HOME_DIR };

function load(text: string, extra: Partial<ConfigContext> = {}) {
  return configFromToml(text, FILE, { ...CONTEXT, ...extra });
}

/** The problems of the `ConfigError` that loading `text` throws. */
function problemsOf(text: string, extra: Partial<ConfigContext> = {}): readonly ConfigProblem[] {
  try {
    load(text, extra);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

function errorOf(action: () => unknown): JarvisError {
  try {
    action();
  } catch (error) {
    if (JarvisError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a JarvisError');
}

function defaults(home: string, cwd: string, configPath: string | undefined): JarvisConfig {
  return {
    home,
    configPath,
    engine: {
      default: undefined,
      model: undefined,
      hosts: {},
      apiKey: undefined,
      modelPath: undefined,
      modelsDir: join(home, 'models'),
      toolCallFormat: undefined,
      embedded: {
        gpu: undefined,
        threads: undefined,
        contextSize: undefined,
        chatWrapper: undefined,
      },
      timeoutMs: undefined,
    },
    agent: {
      default: 'simple',
      maxTurns: 10,
      temperature: 0.7,
      maxTokens: 1024,
      systemPrompt: undefined,
      tools: [],
    },
    memory: {
      backend: 'sqlite',
      dbPath: join(home, 'memory.db'),
      contextInjection: true,
      topK: 5,
      minScore: 0,
      maxContextTokens: 2048,
      chunkSize: 512,
      chunkOverlap: 64,
    },
    tools: {
      fileReadAllowedDirs: [cwd],
      fileReadAllowSecretFiles: false,
      webSearchProvider: undefined,
      webSearchBaseUrl: undefined,
      codeInterpreter: {
        backend: 'auto',
        maxConcurrent: 2,
        memoryMb: 512,
        allowUnsandboxed: false,
      },
    },
    scheduler: {
      dbPath: join(home, 'scheduler.db'),
      concurrency: 4,
      catchupWindowMs: 3_600_000,
      minIntervalMs: 1000,
      maxRunsPerTaskPerMinute: 60,
    },
    sessions: { dbPath: join(home, 'sessions.db'), contextTokens: undefined, answerTokens: 1024 },
    storage: {
      backend: 'sqlite',
      url: undefined,
      poolSize: 10,
      connectTimeoutMs: 10_000,
      statementTimeoutMs: 30_000,
    },
    telemetry: {
      enabled: true,
      dbPath: join(home, 'telemetry.db'),
      traceMaxRuns: 1000,
      traceTextChars: 2000,
      otlpEndpoint: undefined,
      otlpHeaders: {},
    },
    mcp: { servers: [] },
    imports: [],
  };
}

const EVERY_KEY = `imports = ["./plugins/tools.js", "jarvis-extra", "~/lib/agent.js", "/opt/x.js"]

[engine]
default = "vllm"
model = "qwen3:8b"
timeout_seconds = 2.5
tool_call_format = "glm-4.5"

[engine.ollama]
host = "http://10.0.0.2:11434"
[engine.vllm]
host = "http://10.0.0.3:8000/v1"
[engine.llamacpp]
host = "http://10.0.0.4:8080"
[engine.sglang]
host = "http://10.0.0.5:30000"
[engine.lmstudio]
host = "http://10.0.0.6:1234"
[engine.openai]
host = "https://api.example.com/v1"
api_key = "sk-test"
[engine.embedded]
model_path = "models/tiny.gguf"
models_dir = "~/gguf"
gpu = false
threads = 3
context_size = 2048
chat_wrapper = "chatML"

[agent]
default_agent = "orchestrator"
max_turns = 3
temperature = 0.2
max_tokens = 256
system_prompt = "Be brief."
tools = ["calculator", "think"]

[memory]
backend = "custom_store"
db_path = "~/data/mem.db"
context_injection = false
top_k = 7
min_score = 0.25
max_context_tokens = 1000
chunk_size = 300
chunk_overlap = 30

[tools.file_read]
allowed_dirs = ["docs", "~/notes", "/srv/shared"]

[tools.web_search]
provider = "searxng"
base_url = "http://127.0.0.1:8888"

[tools.code_interpreter]
backend = "pyodide"
max_concurrent = 3
memory_mb = 256
allow_unsandboxed = true

[scheduler]
db_path = "sched/s.db"
concurrency = 2
catchup_window_seconds = 90
min_interval_seconds = 0.25
max_runs_per_task_per_minute = 300

[sessions]
db_path = "talk/s.db"
context_tokens = 4096
answer_tokens = 512

[storage]
backend = "postgres"
url = "postgres://jarvis@127.0.0.1:5432/jarvis"
pool_size = 4
connect_timeout_ms = 2500

[telemetry]
enabled = false
db_path = "/var/lib/jarvis/t.db"
trace_max_runs = 50
trace_text_chars = 300
otlp_endpoint = "http://127.0.0.1:4318"
otlp_headers = { Authorization = "Bearer abc" }

[[mcp.servers]]
name = "files"
command = "npx"
args = ["-y", "server-filesystem"]
env = { LOG_LEVEL = "debug" }
timeout_seconds = 5

[[mcp.servers]]
name = "remote"
url = "https://mcp.example.com/mcp"
headers = { Authorization = "Bearer t" }
prefix = ""
`;

describe('configFromToml', () => {
  it('gives the defaults for an empty file', () => {
    expect(load('')).toEqual({ config: defaults(HOME, CWD, FILE), warnings: [] });
  });

  it('maps every key of our schema', () => {
    const { config, warnings } = load(EVERY_KEY);
    expect(warnings).toEqual([]);
    expect(config).toEqual({
      home: HOME,
      configPath: FILE,
      engine: {
        default: 'vllm',
        model: 'qwen3:8b',
        hosts: {
          ollama: 'http://10.0.0.2:11434',
          vllm: 'http://10.0.0.3:8000/v1',
          llamacpp: 'http://10.0.0.4:8080',
          sglang: 'http://10.0.0.5:30000',
          lmstudio: 'http://10.0.0.6:1234',
          openai: 'https://api.example.com/v1',
        },
        apiKey: 'sk-test',
        modelPath: join(HOME, 'models/tiny.gguf'),
        modelsDir: join(HOME_DIR, 'gguf'),
        toolCallFormat: 'glm-4.5',
        embedded: { gpu: false, threads: 3, contextSize: 2048, chatWrapper: 'chatML' },
        timeoutMs: 2500,
      },
      agent: {
        default: 'orchestrator',
        maxTurns: 3,
        temperature: 0.2,
        maxTokens: 256,
        systemPrompt: 'Be brief.',
        tools: ['calculator', 'think'],
      },
      memory: {
        backend: 'custom_store',
        dbPath: join(HOME_DIR, 'data/mem.db'),
        contextInjection: false,
        topK: 7,
        minScore: 0.25,
        maxContextTokens: 1000,
        chunkSize: 300,
        chunkOverlap: 30,
      },
      tools: {
        fileReadAllowedDirs: [join(CWD, 'docs'), join(HOME_DIR, 'notes'), '/srv/shared'],
        fileReadAllowSecretFiles: false,
        webSearchProvider: 'searxng',
        webSearchBaseUrl: 'http://127.0.0.1:8888',
        codeInterpreter: {
          backend: 'pyodide',
          maxConcurrent: 3,
          memoryMb: 256,
          allowUnsandboxed: true,
        },
      },
      scheduler: {
        dbPath: join(HOME, 'sched/s.db'),
        concurrency: 2,
        catchupWindowMs: 90_000,
        minIntervalMs: 250,
        maxRunsPerTaskPerMinute: 300,
      },
      sessions: { dbPath: join(HOME, 'talk/s.db'), contextTokens: 4096, answerTokens: 512 },
      storage: {
        backend: 'postgres',
        url: 'postgres://jarvis@127.0.0.1:5432/jarvis',
        poolSize: 4,
        connectTimeoutMs: 2500,
        statementTimeoutMs: 30_000,
      },
      telemetry: {
        enabled: false,
        dbPath: '/var/lib/jarvis/t.db',
        traceMaxRuns: 50,
        traceTextChars: 300,
        otlpEndpoint: 'http://127.0.0.1:4318',
        otlpHeaders: { Authorization: 'Bearer abc' },
      },
      mcp: {
        servers: [
          {
            name: 'files',
            transport: 'stdio',
            command: 'npx',
            args: ['-y', 'server-filesystem'],
            env: { LOG_LEVEL: 'debug' },
            prefix: 'files.',
            timeoutMs: 5000,
          },
          {
            name: 'remote',
            transport: 'http',
            url: 'https://mcp.example.com/mcp',
            headers: { Authorization: 'Bearer t' },
            prefix: '',
            timeoutMs: 60_000,
          },
        ],
      },
      imports: [
        '/etc/jarvis/plugins/tools.js',
        'jarvis-extra',
        join(HOME_DIR, 'lib/agent.js'),
        '/opt/x.js',
      ],
    });
  });

  it('reads the nested upstream schema ([intelligence], [tools.storage], context_from_memory)', () => {
    const { config, warnings } = load(`
[engine]
default = "ollama"
[engine.ollama]
host = "http://gpu-box:11434"
[engine.llamacpp]
host = "http://localhost:8081"
binary_path = "/usr/bin/llama-server"

[intelligence]
default_model = "llama3.2:3b"
fallback_model = ""
temperature = 0.4
max_tokens = 512
top_p = 0.9

[agent]
default_agent = "react"
max_turns = 6
tools = "calculator, think ,file_read"
system_prompt = "Hi"
context_from_memory = false

[tools]
enabled = ""
[tools.storage]
default_backend = "sqlite"
db_path = "store.db"
context_top_k = 3
context_min_score = 0.1
context_max_tokens = 900
chunk_size = 256
chunk_overlap = 32

[telemetry]
enabled = true
db_path = "tele.db"
gpu_metrics = false

[scheduler]
enabled = false
poll_interval = 60
db_path = ""
`);
    expect(config.engine).toMatchObject({
      default: 'ollama',
      model: 'llama3.2:3b',
      hosts: { ollama: 'http://gpu-box:11434', llamacpp: 'http://localhost:8081' },
    });
    expect(config.agent).toEqual({
      default: 'react',
      maxTurns: 6,
      temperature: 0.4,
      maxTokens: 512,
      systemPrompt: 'Hi',
      tools: ['calculator', 'think', 'file_read'],
    });
    expect(config.memory).toEqual({
      backend: 'sqlite',
      dbPath: join(HOME, 'store.db'),
      contextInjection: false,
      topK: 3,
      minScore: 0.1,
      maxContextTokens: 900,
      chunkSize: 256,
      chunkOverlap: 32,
    });
    expect(config.telemetry).toMatchObject({ enabled: true, dbPath: join(HOME, 'tele.db') });
    expect(config.scheduler.dbPath).toBe(join(HOME, 'scheduler.db'));
    expect(warnings.map((warning) => [warning.key, warning.line])).toEqual([
      ['engine.llamacpp.binary_path', 8],
      ['intelligence.fallback_model', 12],
      ['intelligence.top_p', 15],
      ['telemetry.gpu_metrics', 38],
      ['scheduler.enabled', 41],
      ['scheduler.poll_interval', 42],
    ]);
    expect(warnings[0]?.message).toBe(
      "'engine.llamacpp.binary_path' is not used by OpenJarvis for TypeScript and is ignored",
    );
  });

  it('reads the old flat schema (ollama_host, default_tools, [agent] temperature, [memory] context_*)', () => {
    const { config, warnings } = load(`
[engine]
default = "llamacpp"
ollama_host = "http://a:11434"
vllm_host = "http://b:8000"
llamacpp_host = "http://c:8080"
llamacpp_path = "/usr/local/bin/llama-server"

[intelligence]
default_model = "phi4"

[memory]
default_backend = "sqlite"
db_path = "m.db"
context_injection = false
context_top_k = 9
context_min_score = 0.5
context_max_tokens = 4096

[agent]
default_agent = "orchestrator"
max_turns = 4
default_tools = "calculator,think"
temperature = 1.5
max_tokens = 64

[server]
host = "0.0.0.0"
port = 8000
`);
    expect(config.engine).toMatchObject({
      default: 'llamacpp',
      model: 'phi4',
      hosts: { ollama: 'http://a:11434', vllm: 'http://b:8000', llamacpp: 'http://c:8080' },
    });
    expect(config.agent).toMatchObject({
      default: 'orchestrator',
      maxTurns: 4,
      tools: ['calculator', 'think'],
      temperature: 1.5,
      maxTokens: 64,
    });
    expect(config.memory).toMatchObject({
      dbPath: join(HOME, 'm.db'),
      contextInjection: false,
      topK: 9,
      minScore: 0.5,
      maxContextTokens: 4096,
    });
    expect(warnings.map((warning) => warning.key)).toEqual(['engine.llamacpp_path', 'server']);
    expect(warnings[1]).toEqual({
      file: FILE,
      line: 27,
      key: 'server',
      message: '[server] is not used by OpenJarvis for TypeScript and is ignored',
    });
  });

  it('lets our own keys win over the upstream aliases, and preferred_engine over [engine] default', () => {
    const { config } = load(`
[engine]
default = "ollama"
model = "ours"
ollama_host = "http://flat:11434"
[engine.ollama]
host = "http://nested:11434"
[intelligence]
preferred_engine = "vllm"
default_model = "theirs"
temperature = 0.1
max_tokens = 10
[agent]
temperature = 0.9
max_tokens = 99
tools = ["a"]
context_from_memory = false
[tools]
enabled = "b,c"
[memory]
top_k = 4
context_injection = true
[tools.storage]
top_k = 8
min_score = 0.3
`);
    expect(config.engine).toMatchObject({
      default: 'vllm',
      model: 'ours',
      hosts: { ollama: 'http://nested:11434' },
    });
    expect(config.agent).toMatchObject({ temperature: 0.9, maxTokens: 99, tools: ['a'] });
    expect(config.memory).toMatchObject({ topK: 4, minScore: 0.3, contextInjection: true });
  });

  it('takes [tools] enabled as the default tools when [agent] names none', () => {
    expect(load('[tools]\nenabled = "calculator, think"\n').config.agent.tools).toEqual([
      'calculator',
      'think',
    ]);
  });

  it("keeps SQLite's :memory: as every database's db_path instead of a file under the home folder", () => {
    const { config } = load(
      '[memory]\ndb_path = ":memory:"\n[sessions]\ndb_path = ":memory:"\n' +
        '[scheduler]\ndb_path = ":memory:"\n[telemetry]\ndb_path = ":memory:"\n',
    );
    expect(config.memory.dbPath).toBe(':memory:');
    expect(config.sessions.dbPath).toBe(':memory:');
    expect(config.scheduler.dbPath).toBe(':memory:');
    expect(config.telemetry.dbPath).toBe(':memory:');
    expect(load('[sessions]\ndb_path = "memory"\n').config.sessions.dbPath).toBe(
      join(HOME, 'memory'),
    );
  });

  it('treats blank strings as unset, as upstream writes them', () => {
    const { config } = load(
      '[engine]\ndefault = ""\nmodel = " "\n[agent]\nsystem_prompt = ""\n[memory]\ndb_path = ""\n',
    );
    expect(config.engine.default).toBeUndefined();
    expect(config.engine.model).toBeUndefined();
    expect(config.agent.systemPrompt).toBeUndefined();
    expect(config.memory.dbPath).toBe(join(HOME, 'memory.db'));
  });

  it('reads an Ollama host the way OLLAMA_HOST is read, and adds http:// to other bare hosts', () => {
    const { config } = load(
      '[engine.ollama]\nhost = "0.0.0.0"\n[engine.vllm]\nhost = "gpu:8000"\n[engine.sglang]\nhost = "https://s.example"\n',
    );
    expect(config.engine.hosts).toEqual({
      ollama: 'http://127.0.0.1:11434',
      vllm: 'http://gpu:8000',
      sglang: 'https://s.example',
    });
  });

  it('accepts the boundaries of every range', () => {
    const low = load(
      '[agent]\nmax_turns = 1\ntemperature = 0\nmax_tokens = 1\n[memory]\ntop_k = 1\nchunk_size = 1\nchunk_overlap = 0\n[scheduler]\ncatchup_window_seconds = 0\n',
    ).config;
    expect(low.agent).toMatchObject({ maxTurns: 1, temperature: 0, maxTokens: 1 });
    expect(low.memory).toMatchObject({ topK: 1, chunkSize: 1, chunkOverlap: 0 });
    expect(low.scheduler.catchupWindowMs).toBe(0);
    const high = load('[agent]\ntemperature = 2\n[memory]\ntop_k = 50\n').config;
    expect(high.agent.temperature).toBe(2);
    expect(high.memory.topK).toBe(50);
  });

  it('reports every invalid value at once, with file, line, dotted key and what is accepted', () => {
    const text = `[agent]
max_turns = 0
temperature = 2.5
max_tokens = "lots"

[memory]
top_k = 51
context_injection = "yes"

[engine.vllm]
host = "ftp://files.example"
`;
    const error = errorOf(() => load(text));
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.code).toBe('config_invalid');
    expect((error as ConfigError).problems).toEqual([
      {
        file: FILE,
        line: 2,
        key: 'agent.max_turns',
        message: 'expected a whole number >= 1, got 0',
      },
      {
        file: FILE,
        line: 3,
        key: 'agent.temperature',
        message: 'expected a number from 0 to 2, got 2.5',
      },
      {
        file: FILE,
        line: 4,
        key: 'agent.max_tokens',
        message: 'expected a whole number >= 1, got "lots"',
      },
      {
        file: FILE,
        line: 7,
        key: 'memory.top_k',
        message: 'expected a whole number from 1 to 50, got 51',
      },
      {
        file: FILE,
        line: 8,
        key: 'memory.context_injection',
        message: 'expected true or false, got "yes"',
      },
      {
        file: FILE,
        line: 11,
        key: 'engine.vllm.host',
        message:
          'expected an http:// or https:// address such as "http://localhost:8000", got "ftp://files.example"',
      },
    ]);
    expect(error.message).toContain('Invalid configuration (6 problems):');
    expect(error.message).toContain(
      `${FILE}:2: agent.max_turns: expected a whole number >= 1, got 0`,
    );
    expect(error.message).toContain(`${FILE}:11: engine.vllm.host:`);
    expect(error.message).toContain('jarvis init');
  });

  it.each([
    ['[agent]\nmax_turns = 2.5', 'agent.max_turns', 'a whole number >= 1'],
    ['[agent]\ntemperature = -0.1', 'agent.temperature', 'a number from 0 to 2'],
    ['[agent]\ndefault_agent = "my agent"', 'agent.default_agent', 'letters, digits, _ and -'],
    ['[agent]\ntools = 5', 'agent.tools', 'an array of strings or a comma-separated string'],
    ['[agent]\ntools = ["ok", ""]', 'agent.tools', 'an array of strings'],
    ['[agent]\nsystem_prompt = 1', 'agent.system_prompt', 'a string'],
    ['[engine]\ndefault = "Ollama!"', 'engine.default', 'an engine key (ollama, vllm'],
    ['[engine]\ntimeout_seconds = 0', 'engine.timeout_seconds', 'a number > 0'],
    ['[engine]\nollama_host = "gopher://x"', 'engine.ollama_host', 'an Ollama address'],
    ['[engine.openai]\nhost = "not a url"', 'engine.openai.host', 'an http:// or https://'],
    ['[engine.ollama]\nhost = "http://x:99999"', 'engine.ollama.host', 'an Ollama address'],
    ['engine = 5', 'engine', 'a table ([engine])'],
    ['[engine]\nollama = "http://x"', 'engine.ollama', 'a table ([engine.ollama])'],
    ['[memory]\ntop_k = 0', 'memory.top_k', 'from 1 to 50'],
    ['[memory]\nmin_score = "high"', 'memory.min_score', 'a number'],
    [
      '[memory]\nchunk_size = 100\nchunk_overlap = 100',
      'memory.chunk_overlap',
      'smaller than chunk_size (100)',
    ],
    ['[memory]\nchunk_size = 0', 'memory.chunk_size', 'a whole number >= 1'],
    [
      '[tools.file_read]\nallowed_dirs = "."',
      'tools.file_read.allowed_dirs',
      'an array of non-empty strings',
    ],
    [
      '[tools.web_search]\nprovider = "google"',
      'tools.web_search.provider',
      'one of "duckduckgo", "searxng", "tavily", "brave"',
    ],
    ['[tools.web_search]\nbase_url = "ftp://searx"', 'tools.web_search.base_url', 'an http://'],
    [
      '[tools.code_interpreter]\nbackend = "docker"',
      'tools.code_interpreter.backend',
      'one of "auto", "bwrap", "pyodide"',
    ],
    [
      '[tools.code_interpreter]\nmemory_mb = 0',
      'tools.code_interpreter.memory_mb',
      'a whole number >= 1',
    ],
    [
      '[tools.code_interpreter]\nmax_concurrent = -1',
      'tools.code_interpreter.max_concurrent',
      '>= 1',
    ],
    [
      '[tools.code_interpreter]\nallow_unsandboxed = 1',
      'tools.code_interpreter.allow_unsandboxed',
      'true or false',
    ],
    ['[scheduler]\nconcurrency = 0', 'scheduler.concurrency', 'a whole number >= 1'],
    [
      '[scheduler]\ncatchup_window_seconds = -5',
      'scheduler.catchup_window_seconds',
      'a number >= 0',
    ],
    ['[scheduler]\nmin_interval_seconds = 0', 'scheduler.min_interval_seconds', 'a number > 0'],
    [
      '[scheduler]\nmax_runs_per_task_per_minute = 0.5',
      'scheduler.max_runs_per_task_per_minute',
      'a whole number >= 1',
    ],
    ['[telemetry]\nenabled = "false"', 'telemetry.enabled', 'true or false'],
    ['[telemetry]\ntrace_max_runs = -1', 'telemetry.trace_max_runs', '0'],
    ['[telemetry]\notlp_endpoint = "ftp://x"', 'telemetry.otlp_endpoint', 'http'],
    ['imports = "./x.js"', 'imports', 'an array of non-empty strings'],
  ])('rejects %j at %s', (text, key, expected) => {
    const problems = problemsOf(text);
    expect(problems.map((problem) => problem.key)).toEqual([key]);
    expect(problems[0]?.message).toMatch(/^expected /);
    expect(problems[0]?.message).toContain(expected);
    expect(problems[0]?.line).toBeGreaterThan(0);
  });

  it('describes a date value as a date', () => {
    expect(problemsOf('[agent]\nsystem_prompt = 2024-01-01')[0]?.message).toBe(
      'expected a string, got a date',
    );
  });

  it('warns about unknown keys with their line and the known keys, and still loads', () => {
    const { config, warnings } = load(`colour = "blue"
[agent]
max_turn = 5
max_turns = 4
[engine.ollama]
hots = "x"
[tools.web_search]
api_key = "k"
[mystery]
a = 1
`);
    expect(config.agent.maxTurns).toBe(4);
    expect(warnings.map(({ key, line }) => ({ key, line }))).toEqual([
      { key: 'colour', line: 1 },
      { key: 'agent.max_turn', line: 3 },
      { key: 'engine.ollama.hots', line: 6 },
      { key: 'tools.web_search.api_key', line: 8 },
      { key: 'mystery', line: 9 },
    ]);
    expect(warnings[1]).toEqual({
      file: FILE,
      line: 3,
      key: 'agent.max_turn',
      message:
        "unknown key 'max_turn' in [agent]; known keys: context_from_memory, default_agent, default_tools, max_tokens, max_turns, system_prompt, temperature, tools",
    });
    expect(warnings[0]?.message).toMatch(/^unknown key 'colour' at the top level; known keys: /);
    expect(warnings[4]?.message).toContain(
      'agent, engine, imports, intelligence, mcp, memory, scheduler, sessions, storage, telemetry, tools',
    );
  });

  it('warns about each unused upstream section, naming it', () => {
    const { warnings } = load(
      '[security]\nmode = "warn"\n[learning]\n[learning.routing]\npolicy = "x"\n[traces]\n[sandbox]\n[channel]\n',
    );
    expect(warnings.map((warning) => warning.message)).toEqual([
      '[security] is not used by OpenJarvis for TypeScript and is ignored',
      '[learning] is not used by OpenJarvis for TypeScript and is ignored',
      '[traces] is not used by OpenJarvis for TypeScript and is ignored',
      '[sandbox] is not used by OpenJarvis for TypeScript and is ignored',
      '[channel] is not used by OpenJarvis for TypeScript and is ignored',
    ]);
    expect(warnings.map((warning) => warning.line)).toEqual([1, 3, 6, 7, 8]);
  });

  it('points users of the upstream [tools.mcp] servers string at [[mcp.servers]]', () => {
    const { warnings } = load('[tools.mcp]\nenabled = true\nservers = "[]"\n');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.message).toContain('list external MCP servers as [[mcp.servers]] instead');
  });

  it('accepts an engine key that is not built in, with a warning, and keeps its host', () => {
    const { config, warnings } = load(
      '[engine]\ndefault = "my-engine"\n[engine.my-engine]\nhost = "http://127.0.0.1:9000"\n',
    );
    expect(config.engine.default).toBe('my-engine');
    expect(config.engine.hosts).toEqual({ 'my-engine': 'http://127.0.0.1:9000' });
    expect(warnings.map(({ key, line }) => ({ key, line }))).toEqual([
      { key: 'engine.default', line: 2 },
      { key: 'engine.my-engine', line: 3 },
    ]);
    expect(warnings[0]?.message).toContain("'my-engine' is not a built-in engine");
    expect(warnings[0]?.message).toContain('imports registers it');
  });

  it('leaves an [engine] sub-table whose name is no engine key unread, with an unknown-key warning', () => {
    const { config, warnings } = load('[engine."Not A Key"]\nhost = "http://x"\n');
    expect(config.engine.hosts).toEqual({});
    expect(warnings.map(({ key, line }) => ({ key, line }))).toEqual([
      { key: 'engine."Not A Key"', line: 1 },
    ]);
  });

  describe('paths', () => {
    it('expands ~, resolves databases against the home folder and allowed_dirs against cwd', () => {
      const { config } = load(`
[memory]
db_path = "~"
[scheduler]
db_path = "../elsewhere/s.db"
[telemetry]
db_path = "~/t.db"
[tools.file_read]
allowed_dirs = [".", "..", "~/docs"]
`);
      expect(config.memory.dbPath).toBe(HOME_DIR);
      expect(config.scheduler.dbPath).toBe('/home/tester/elsewhere/s.db');
      expect(config.telemetry.dbPath).toBe(join(HOME_DIR, 't.db'));
      expect(config.tools.fileReadAllowedDirs).toEqual([CWD, '/work', join(HOME_DIR, 'docs')]);
    });

    it('allows an empty allowed_dirs list (file_read may then read nothing)', () => {
      expect(
        load('[tools.file_read]\nallowed_dirs = []\n').config.tools.fileReadAllowedDirs,
      ).toEqual([]);
    });

    it('resolves relative imports against the config file folder and keeps package names', () => {
      const { config } = load('imports = ["./a.js", "../b.js", "pkg", "@scope/pkg/sub", "~"]\n');
      expect(config.imports).toEqual([
        '/etc/jarvis/a.js',
        '/etc/b.js',
        'pkg',
        '@scope/pkg/sub',
        HOME_DIR,
      ]);
    });
  });

  describe('[[mcp.servers]]', () => {
    it('reports a missing name, both or neither transport, and keys of the other transport', () => {
      const problems = problemsOf(`[[mcp.servers]]
command = "a"

[[mcp.servers]]
name = "both"
command = "a"
url = "http://x/mcp"

[[mcp.servers]]
name = "neither"

[[mcp.servers]]
name = "web"
url = "http://x/mcp"
args = ["a"]
env = { A = "1" }

[[mcp.servers]]
name = "local"
command = "a"
headers = { X = "1" }
`);
      expect(problems.map(({ key, line, message }) => ({ key, line, message }))).toEqual([
        {
          key: 'mcp.servers[0].name',
          line: 1,
          message: 'missing: every [[mcp.servers]] entry needs a name of letters, digits, _ and -',
        },
        {
          key: 'mcp.servers[1].url',
          line: 7,
          message: 'give either command (a local process) or url (an HTTP server), not both',
        },
        {
          key: 'mcp.servers[2].command',
          line: 9,
          message:
            'missing: give command = "program" (a local process) or url = "http://host/mcp" (an HTTP server)',
        },
        {
          key: 'mcp.servers[3].args',
          line: 15,
          message: "'args' applies only to command servers",
        },
        { key: 'mcp.servers[3].env', line: 16, message: "'env' applies only to command servers" },
        {
          key: 'mcp.servers[4].headers',
          line: 21,
          message: "'headers' applies only to url servers",
        },
      ]);
    });

    it('reports duplicate and malformed names, blank commands and bad env or header names', () => {
      const problems = problemsOf(`[[mcp.servers]]
name = "dup"
command = "a"
[[mcp.servers]]
name = "dup"
command = "b"
[[mcp.servers]]
name = "has space"
command = " "
[[mcp.servers]]
name = "e"
command = "c"
env = { "1BAD" = "x" }
timeout_seconds = 0
prefix = "a b"
`);
      expect(problems.map((problem) => [problem.key, problem.line])).toEqual([
        ['mcp.servers[1].name', 5],
        ['mcp.servers[2].name', 8],
        ['mcp.servers[2].command', 9],
        ['mcp.servers[3].env', 13],
        ['mcp.servers[3].timeout_seconds', 14],
        ['mcp.servers[3].prefix', 15],
      ]);
      expect(problems[0]?.message).toBe("duplicate MCP server name 'dup'; names must be unique");
    });

    it('reports a repeated name together with the other problems of that server', () => {
      const problems = problemsOf(`[[mcp.servers]]
name = "dup"
command = "a"
[[mcp.servers]]
name = "dup"
command = "b"
env = { "1BAD" = "x" }
`);
      expect(problems.map(({ key, line, message }) => ({ key, line, message }))).toEqual([
        {
          key: 'mcp.servers[1].name',
          line: 5,
          message: "duplicate MCP server name 'dup'; names must be unique",
        },
        {
          key: 'mcp.servers[1].env',
          line: 7,
          message: 'expected a table of NAME = "text" entries, got a table',
        },
      ]);
    });

    it('accepts servers written as an inline array and warns about unknown keys in one', () => {
      const { config, warnings } = load(
        'mcp = { servers = [{ name = "a", command = "x", cwd = "/tmp" }] }\n',
      );
      expect(config.mcp.servers).toEqual([
        {
          name: 'a',
          transport: 'stdio',
          command: 'x',
          args: [],
          env: {},
          prefix: 'a.',
          timeoutMs: 60_000,
        },
      ]);
      expect(warnings.map(({ key, line }) => ({ key, line }))).toEqual([
        { key: 'mcp.servers[0].cwd', line: 1 },
      ]);
    });

    it('rejects servers that are not an array of tables', () => {
      expect(problemsOf('[mcp]\nservers = "[]"\n')[0]).toMatchObject({
        key: 'mcp.servers',
        line: 2,
        message: 'expected an array of tables ([[mcp.servers]]), got "[]"',
      });
    });
  });

  describe('environment overrides', () => {
    it('applies OPENJARVIS_ENGINE, OPENJARVIS_MODEL, OLLAMA_HOST, OPENAI_BASE_URL and OPENAI_API_KEY over the file', () => {
      const { config } = load(
        '[engine]\ndefault = "vllm"\nmodel = "file-model"\n[engine.ollama]\nhost = "http://file:11434"\n[engine.vllm]\nhost = "http://v:8000"\n[engine.openai]\napi_key = "file-key"\n',
        {
          env: {
            OPENJARVIS_ENGINE: 'openai',
            OPENJARVIS_MODEL: 'env-model',
            OLLAMA_HOST: '0.0.0.0:11500',
            OPENAI_BASE_URL: 'https://proxy.example/v1',
            OPENAI_API_KEY: 'env-key',
          },
        },
      );
      expect(config.engine).toMatchObject({
        default: 'openai',
        model: 'env-model',
        hosts: {
          ollama: 'http://127.0.0.1:11500',
          vllm: 'http://v:8000',
          openai: 'https://proxy.example/v1',
        },
        apiKey: 'env-key',
      });
    });

    it('ignores blank variables and keeps the file values', () => {
      const { config } = load('[engine]\ndefault = "vllm"\n', {
        env: { OPENJARVIS_ENGINE: '  ', OLLAMA_HOST: '', OPENAI_API_KEY: '' },
      });
      expect(config.engine).toMatchObject({ default: 'vllm', hosts: {}, apiKey: undefined });
    });

    it('reports invalid variables by name, together with the file problems', () => {
      const error = errorOf(() =>
        load('[agent]\nmax_turns = 0\n', {
          env: {
            OPENJARVIS_ENGINE: 'Not Valid',
            OLLAMA_HOST: 'gopher://x',
            OPENAI_BASE_URL: 'nope nope',
          },
        }),
      ) as ConfigError;
      expect(error.problems.map((problem) => [problem.file, problem.key])).toEqual([
        [FILE, 'agent.max_turns'],
        [undefined, 'OPENJARVIS_ENGINE'],
        [undefined, 'OLLAMA_HOST'],
        [undefined, 'OPENAI_BASE_URL'],
      ]);
      expect(error.message).toContain(
        'environment variable OPENJARVIS_ENGINE: expected an engine key (ollama',
      );
      expect(error.message).toContain('got "Not Valid"');
    });

    it('warns when OPENJARVIS_ENGINE names an engine that is not built in', () => {
      const { config, warnings } = load('', { env: { OPENJARVIS_ENGINE: 'custom' } });
      expect(config.engine.default).toBe('custom');
      expect(warnings).toEqual([
        {
          file: '(environment)',
          line: undefined,
          key: 'OPENJARVIS_ENGINE',
          message: expect.stringContaining("'custom' is not a built-in engine"),
        },
      ]);
    });
  });

  describe('malformed TOML', () => {
    it('names file, line and column and keeps the TomlError as cause', () => {
      const error = errorOf(() => load('[agent]\nmax_turns = 3\ntemperature = = 1\n'));
      expect(error.code).toBe('config_invalid');
      expect(error.message).toMatch(new RegExp(`^${FILE}:3:\\d+: `));
      expect(error.message).toContain('temperature = = 1');
      expect(error.message).toContain('Fix the TOML syntax there');
      expect(error.cause).toBeInstanceOf(Error);
    });

    it('reports a duplicate key as a syntax error with its line', () => {
      const error = errorOf(() => load('[agent]\nmax_turns = 3\nmax_turns = 4\n'));
      expect(error.message).toMatch(new RegExp(`^${FILE}:3:\\d+: `));
    });

    it('redacts the key next to a syntax error, in the message and in the cause', () => {
      const error = errorOf(() =>
        load('[engine.openai]\napi_key = "office-key-7f3a9c" oops\nmodel = "m"\n'),
      );
      expect(error.message).toMatch(new RegExp(`^${FILE}:2:\\d+: `));
      expect(error.message).toContain('api_key = "[REDACTED]" oops');
      expect(error.message).toContain('^');
      expect(error.message).not.toContain('office-key-7f3a9c');
      expect(String((error.cause as Error).message)).not.toContain('office-key-7f3a9c');
    });

    it('redacts an unclosed secret string, a secret of the environment and shaped keys nearby', () => {
      const error = errorOf(() =>
        load('token = "half-open-secret-1\nopenai = "env-key-abcdef"\n', {
          env: { OPENAI_API_KEY: 'env-key-abcdef' },
        }),
      );
      expect(error.message).not.toContain('half-open-secret-1');
      expect(error.message).not.toContain('env-key-abcdef');
      expect(error.message).toContain('[REDACTED]');
    });

    it('shows control characters of the excerpt as escapes and cuts a huge line around the column', () => {
      const error = errorOf(() => load(`x = "\u001b[31mred"\ny = ${'1'.repeat(500)} = 2\n`));
      expect(error.message).not.toContain('\u001b');
      expect(error.message).toContain('^[[31mred');
      expect(errorOf(() => load(`y = ${'1'.repeat(500)} z\n`)).message.length).toBeLessThan(400);
    });

    it('redacts secret values quoted in problems and warnings', () => {
      const problems = problemsOf('[engine.openai]\napi_key = 12345678901\n');
      expect(problems[0]?.message).toContain('[REDACTED]');
      expect(problems[0]?.message).not.toContain('12345678901');
      const { warnings } = load('[agent]\nsk-proj-abcdefghijklmnopqrstuvwx = 1\n');
      expect(warnings[0]?.key).not.toContain('abcdefghijklmnop');
      expect(warnings[0]?.message).not.toContain('abcdefghijklmnop');
    });

    it('reads a file that starts with a byte order mark', () => {
      expect(load('\uFEFF[agent]\nmax_turns = 2\n').config.agent.maxTurns).toBe(2);
    });
  });
});

describe('indexKeyLines', () => {
  it('finds keys under headers, dotted and quoted keys, and array-of-tables entries', () => {
    const lineOf = indexKeyLines(`top = 1
[a]
b = 2
"quoted key" = 3
c.d = 4
[ a . "e" ]
f = 5
[[list]]
g = 6
[[list]]
g = 7
`);
    expect(lineOf(['top'])).toBe(1);
    expect(lineOf(['a', 'b'])).toBe(3);
    expect(lineOf(['a', 'quoted key'])).toBe(4);
    expect(lineOf(['a', 'c', 'd'])).toBe(5);
    expect(lineOf(['a', 'e', 'f'])).toBe(7);
    expect(lineOf(['list', 0, 'g'])).toBe(9);
    expect(lineOf(['list', 1, 'g'])).toBe(11);
    expect(lineOf(['list', 1])).toBe(10);
  });

  it('skips multi-line arrays and strings, and falls back to the nearest enclosing key', () => {
    const lineOf = indexKeyLines(`[x]
items = [
  "y = 1",
  [1, 2],
]
text = """
z = 2
[fake]
"""
inline = { deep = 1 }
after = 3
`);
    expect(lineOf(['x', 'items'])).toBe(2);
    expect(lineOf(['x', 'y'])).toBe(1);
    expect(lineOf(['x', 'z'])).toBe(1);
    expect(lineOf(['fake'])).toBeUndefined();
    expect(lineOf(['x', 'inline', 'deep'])).toBe(10);
    expect(lineOf(['x', 'after'])).toBe(11);
    expect(lineOf(['nowhere', 'at', 'all'])).toBeUndefined();
  });
});

describe('configLocation', () => {
  it('defaults to ~/.openjarvis/config.toml', () => {
    expect(configLocation({ env: {}, homeDir: HOME_DIR, cwd: CWD })).toEqual({
      home: HOME,
      path: join(HOME, 'config.toml'),
      namedBy: undefined,
    });
  });

  it('takes OPENJARVIS_HOME (~ expanded, relative to cwd) and OPENJARVIS_CONFIG', () => {
    expect(
      configLocation({ env: { OPENJARVIS_HOME: '~/jarvis' }, homeDir: HOME_DIR, cwd: CWD }),
    ).toEqual({
      home: join(HOME_DIR, 'jarvis'),
      path: join(HOME_DIR, 'jarvis/config.toml'),
      namedBy: undefined,
    });
    expect(
      configLocation({
        env: { OPENJARVIS_HOME: 'state', OPENJARVIS_CONFIG: 'conf/j.toml' },
        homeDir: HOME_DIR,
        cwd: CWD,
      }),
    ).toEqual({
      home: join(CWD, 'state'),
      path: join(CWD, 'conf/j.toml'),
      namedBy: 'OPENJARVIS_CONFIG',
    });
  });

  it('prefers the configPath option over OPENJARVIS_CONFIG', () => {
    expect(
      configLocation({
        configPath: '~/my.toml',
        env: { OPENJARVIS_CONFIG: '/other.toml' },
        homeDir: HOME_DIR,
        cwd: CWD,
      }),
    ).toMatchObject({ path: join(HOME_DIR, 'my.toml'), namedBy: 'option' });
  });
});

describe('loadConfig', () => {
  let folder: string;

  beforeEach(async () => {
    folder = await mkdtemp(join(tmpdir(), 'jarvis-config-'));
  });

  afterEach(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it('gives the defaults when the default file does not exist', async () => {
    const result = await loadConfig({ env: {}, homeDir: folder, cwd: folder });
    expect(result).toEqual({
      config: defaults(join(folder, '.openjarvis'), folder, undefined),
      warnings: [],
    });
  });

  it('builds the defaults without the schemas exactly as the schemas give them', () => {
    for (const context of [CONTEXT, { ...CONTEXT, cwd: '/' }, { ...CONTEXT, env: {} }]) {
      const checked = checkedConfig({}, { file: undefined, text: '' }, context);
      expect(defaultConfig(context)).toStrictEqual(checked);
      expect(JSON.stringify(defaultConfig(context))).toBe(JSON.stringify(checked));
    }
    expect(defaultConfig(CONTEXT).config.tools.fileReadAllowedDirs).toEqual([CWD]);
    expect(defaultConfig({ ...CONTEXT, cwd: '/' }).config.tools.fileReadAllowedDirs).toEqual([]);
  });

  it('skips the schemas only when none of the variables they read is set', async () => {
    expect([...ENVIRONMENT_OVERRIDES].sort()).toEqual(
      Object.keys(environmentSchema().shape).sort(),
    );
    const options = { homeDir: folder, cwd: folder };
    const unchecked = await loadConfig({ ...options, env: { PATH: '/bin', OPENJARVIS_X: '1' } });
    for (const name of ENVIRONMENT_OVERRIDES) {
      // A blank variable counts as unset, so the checked path gives the same configuration.
      expect(await loadConfig({ ...options, env: { [name]: ' ' } })).toStrictEqual(unchecked);
    }
    const named = await loadConfig({ ...options, env: { OPENJARVIS_ENGINE: 'bad key!' } }).catch(
      (error: unknown) => error,
    );
    expect(named).toBeInstanceOf(ConfigError);
  });

  it('still applies the environment when there is no file', async () => {
    const { config } = await loadConfig({
      env: { OPENJARVIS_MODEL: 'm', OLLAMA_HOST: 'box' },
      homeDir: folder,
      cwd: folder,
    });
    expect(config.engine).toMatchObject({ model: 'm', hosts: { ollama: 'http://box:11434' } });
  });

  it('reads <home>/config.toml, with OPENJARVIS_HOME given with ~, and lets the environment win', async () => {
    const home = join(folder, 'jh');
    await mkdir(home);
    await writeFile(join(home, 'config.toml'), '[engine]\nmodel = "from-file"\ndefault = "vllm"\n');
    const { config, warnings } = await loadConfig({
      env: { OPENJARVIS_HOME: '~/jh', OPENJARVIS_MODEL: 'from-env' },
      homeDir: folder,
      cwd: '/',
    });
    expect(warnings).toEqual([]);
    expect(config).toMatchObject({
      home,
      configPath: join(home, 'config.toml'),
      engine: { model: 'from-env', default: 'vllm' },
      memory: { dbPath: join(home, 'memory.db') },
    });
  });

  it('reads the file named by the option, relative to cwd, over OPENJARVIS_CONFIG', async () => {
    await writeFile(join(folder, 'a.toml'), '[agent]\nmax_turns = 2\n');
    const { config } = await loadConfig({
      configPath: 'a.toml',
      env: { OPENJARVIS_CONFIG: join(folder, 'missing.toml') },
      homeDir: folder,
      cwd: folder,
    });
    expect(config.agent.maxTurns).toBe(2);
    expect(config.configPath).toBe(join(folder, 'a.toml'));
  });

  it('fails when a named file does not exist, saying who named it', async () => {
    const viaOption = await loadConfig({
      configPath: join(folder, 'nope.toml'),
      env: {},
      homeDir: folder,
      cwd: folder,
    }).catch((error: unknown) => error);
    expect(viaOption).toMatchObject({ code: 'config_not_found' });
    expect((viaOption as Error).message).toContain(
      `${join(folder, 'nope.toml')} (given with --config)`,
    );
    expect((viaOption as Error).message).toContain('jarvis init');

    const viaEnvironment = await loadConfig({
      env: { OPENJARVIS_CONFIG: join(folder, 'gone.toml') },
      homeDir: folder,
      cwd: folder,
    }).catch((error: unknown) => error);
    expect(viaEnvironment).toMatchObject({ code: 'config_not_found' });
    expect((viaEnvironment as Error).message).toContain('named by OPENJARVIS_CONFIG');
  });

  it('redacts the secrets of an environment dump given as the config (like /proc/self/environ)', async () => {
    const environ = {
      DB_PASSWORD: 'hunter2-but-longer',
      GH_TOKEN: 'deploy-token-a1b2c3',
      OPENAI_API_KEY: 'sk-environ-0123456789abcdef',
      PATH: '/usr/bin:/bin',
    };
    const path = join(folder, 'environ');
    const dump = Object.entries(environ).map(([name, value]) => `${name}=${value}\0`);
    await writeFile(path, dump.join(''));
    for (const env of [{ OPENJARVIS_CONFIG: path, ...environ }, { OPENJARVIS_CONFIG: path }]) {
      const error = await loadConfig({ env, homeDir: folder, cwd: folder }).then(
        () => {
          throw new Error('expected the environment dump to be refused');
        },
        (caught: unknown) => caught as JarvisError,
      );
      expect(error.code).toBe('config_invalid');
      expect(error.message).toContain(`${path}:1:`);
      for (const secret of ['sk-environ', 'deploy-token-a1b2c3', 'hunter2-but-longer']) {
        expect(error.message).not.toContain(secret);
      }
      expect(error.message).toContain('DB_PASSWORD=[REDACTED]\\u{0}GH_TOKEN=[REDACTED]');
      expect(error.message).not.toContain('\0');
    }
  });

  it('fails with config_unreadable when the path is a folder', async () => {
    await expect(
      loadConfig({ configPath: folder, env: {}, homeDir: folder, cwd: folder }),
    ).rejects.toMatchObject({ code: 'config_unreadable' });
  });

  it('names the real file in problems and syntax errors', async () => {
    const path = join(folder, 'bad.toml');
    await writeFile(path, '[memory]\ntop_k = 0\n');
    await expect(
      loadConfig({ configPath: path, env: {}, homeDir: folder, cwd: folder }),
    ).rejects.toMatchObject({
      code: 'config_invalid',
      problems: [{ file: path, line: 2, key: 'memory.top_k' }],
    });
    await writeFile(path, '[memory\n');
    await expect(
      loadConfig({ configPath: path, env: {}, homeDir: folder, cwd: folder }),
    ).rejects.toThrow(`${path}:1:`);
  });

  it('resolves relative imports against the folder of the file', async () => {
    const path = join(folder, 'conf', 'c.toml');
    await mkdir(join(folder, 'conf'));
    await writeFile(path, 'imports = ["./tools.js"]\n');
    const { config } = await loadConfig({ configPath: path, env: {}, homeDir: folder, cwd: '/' });
    expect(config.imports).toEqual([join(folder, 'conf', 'tools.js')]);
  });
});
