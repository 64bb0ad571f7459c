import { availableParallelism } from 'node:os';
import { dirname, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { transform } from 'esbuild';
import type { Plugin } from 'vite';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const ROOT = dirname(fileURLToPath(import.meta.url));

/**
 * The files measured slowest (Pyodide boots, CLI processes, embedded models), slowest first. They start first
 * so that none of them is still running alone on one worker at the end while the other worker sits idle; vitest
 * orders the files by their last durations only when its cache has them (a fresh CI checkout has none).
 */
const SLOW_FILES_FIRST: readonly string[] = [
  // The first two do not use the CLI build, which the global setup makes while they run.
  'src/tools/builtin/sandbox/sandbox-pyodide-hostile.test.ts',
  'src/cli/first-run.test.ts',
  'test/cli/models.test.ts',
  'test/cli/ask.test.ts',
  'src/engine/models/pull-model.test.ts',
  'test/cli/commands.test.ts',
  'src/engine/embedded/embedded-llama-runtime.test.ts',
  'src/engine/models/local-models.test.ts',
  // After the hostile file has built the run's Pyodide snapshot, which these reuse.
  'src/tools/builtin/sandbox/sandbox-pyodide.test.ts',
  'test/cli/scheduler.test.ts',
  'test/examples.test.ts',
  'test/cli/sessions.test.ts',
  'test/cli/engines-install.test.ts',
  'test/cli/models-list.test.ts',
  'src/engine/embedded/embedded-llama.test.ts',
  'src/tools/builtin/sandbox/sandbox-pyodide-stage.test.ts',
  'src/tools/builtin/sandbox/code-interpreter.test.ts',
];

/** `folder/<name>.test.ts` for each name. */
const inFolder = (folder: string, names: readonly string[]): string[] =>
  names.map((name) => `${folder}/${name}.test.ts`);

/**
 * Unit test files that run one after another in a reused worker (`isolate: false`): a fresh worker per file
 * costs ~0.8 s of CPU (start the thread, import vitest and the file's modules again), a reused one ~0.25 s
 * (182 of these files on two workers: 197 -> 86 s of CPU). Modules stay loaded between the files of a worker,
 * so a file listed here must leave no state behind: no `vi.mock`, no fake timers or stubbed globals left on, no
 * `process.env` changes or `process.on` listeners kept, no entries left in the shared registries (`ToolRegistry`,
 * ...), every server and child process it starts stopped. They passed together in shuffled orders on one
 * worker; a file not listed (a new one) runs isolated.
 */
const SHARED_WORKER_FILES: readonly string[] = [
  ...inFolder('src/agents', [
    'base-agent',
    'custom',
    'loop-guard',
    'native-openhands',
    'native-react',
    'orchestrator',
    'orchestrator-http',
    'orchestrator-prompt',
    'orchestrator-stream',
    'orchestrator-structured',
    'orchestrator-turn',
    'rlm',
    'run-failure',
    'run-messages',
    'simple',
    'stop-conditions',
    'text-protocol',
    'tool-call-blocks',
    'turn-loop',
  ]),
  ...inFolder('src/agents/openclaw', [
    'http-transport',
    'line-splitter',
    'openclaw-agent',
    'protocol',
    'subprocess-transport',
  ]),
  ...inFolder('src/cli', [
    'agents-action',
    'approval',
    'ask-action',
    'ask-json',
    'ask-query',
    'ask-render',
    'ask-session',
    'ask-stop',
    'ask-wait',
    'chat-command',
    'chat-history-file',
    'chat-input',
    'chat-loop',
    'chat-slash',
    'cli-output',
    'command-table',
    'inspect-commands',
    'mcp-command',
    'memory-action',
    'memory-index-action',
    'models-pull-action',
    'optional-packages',
    'progress',
    'request-log',
    'scheduler-command',
    'scheduler-format',
    'sessions-action',
    'sessions-format',
    'table',
    'telemetry-runs-format',
  ]),
  ...inFolder('src/core', [
    'abort',
    'conversation',
    'did-you-mean',
    'error-codes',
    'events',
    'linked-list',
    'option-checks',
    'reasoning',
    'redact',
    'registry',
    'sqlite-driver',
    'terminal-text',
    'unknown-name',
  ]),
  ...inFolder('src/engine', ['discovery']),
  ...inFolder('src/engine/embedded', [
    'embedded-llama-lock',
    'embedded-llama-messages',
    'embedded-llama-queue',
    'embedded-llama-schema',
    'embedded-llama-text-calls',
    'embedded-llama-tools',
  ]),
  ...inFolder('src/engine/http', [
    'engine-requests',
    'http-client',
    'http-timeouts',
    'json-body',
    'request-log',
    'tools-unsupported',
  ]),
  ...inFolder('src/engine/models', [
    'downloader-hooks',
    'incremental-hash',
    'local-models',
    'recommend-model',
  ]),
  ...inFolder('src/engine/ollama', [
    'ollama-context',
    'ollama-host',
    'ollama-show',
    'ollama-stream',
    'ollama-wire',
    'ollama',
  ]),
  ...inFolder('src/engine/openai', ['openai-compatible', 'openai-errors']),
  ...inFolder('src/engine/wire', [
    'engine-results',
    'lenient-json',
    'offered-tools',
    'stream-call-starts',
    'stream-chunks',
    'text-scan',
    'text-tool-call-buffer',
    'text-tool-calls',
  ]),
  ...inFolder('src/engine/wire/formats', [
    'command-r',
    'deepseek',
    'format-instructions',
    'format-names',
    'functionary',
    'glm',
    'gpt-oss',
    'hermes-variants',
    'json-list-markers',
    'kimi-k2',
    'lfm2',
    'llama4',
    'minimax',
    'qwen3-coder',
    'read-text-tool-calls',
    'seed-oss',
    'template-formats',
    'xml-parameters',
  ]),
  ...inFolder('src/mcp', [
    'mcp-client-http',
    'mcp-client-parts',
    'mcp-orchestrator',
    'mcp-server-http',
    'mcp-server-stdio',
    'mcp-stdio',
  ]),
  ...inFolder('src/memory', [
    'chunking',
    'context-injection',
    'fts-query',
    'index-path',
    'postgres-memory',
    'sqlite-memory',
  ]),
  ...inFolder('src/scheduler', [
    'postgres-scheduler-store',
    'schedule',
    'scheduler-store',
    'scheduler-tools',
    'task-scheduler',
  ]),
  ...inFolder('src/sdk', ['jarvis', 'session-handle']),
  ...inFolder('src/server', [
    'body-limit',
    'chat-request',
    'chat-response',
    'jarvis-server',
    'page-api',
    'page-chat',
    'request-deadline',
    'request-guards',
    'web-assets',
  ]),
  ...inFolder('src/sessions', [
    'history-fit',
    'postgres-session-store',
    'session-history',
    'sqlite-session-store',
    'summarize',
    'token-count',
    'tool-pairing',
  ]),
  ...inFolder('src/storage', ['migrations', 'postgres-database']),
  ...inFolder('src/system/config', [
    'file',
    'init',
    'load',
    'secrets',
    'starter',
    'storage-config',
    'tools',
  ]),
  ...inFolder('src/system', [
    'builtins',
    'diagnostics',
    'embedded-runtime',
    'engine-survey',
    'engines',
    'memory-result-json',
    'session-turn',
    'storage-backends',
    'system',
    'system-agents',
    'system-memory',
    'system-tools',
    'tool-catalog',
    'tool-json',
    'tool-settings',
  ]),
  ...inFolder('src/telemetry', [
    'instrumented-engine',
    'otel-trace-sink',
    'postgres-telemetry-store',
    'run-traces',
    'sqlite-telemetry-backend',
    'telemetry-backend',
    'telemetry-record',
    'telemetry-store',
  ]),
  ...inFolder('src/testing', [
    'openclaw-runtime',
    'scripted-engine',
    'scripted-model-hub',
    'scripted-server',
    'scripted-tool',
    'tiny-gguf',
  ]),
  ...inFolder('src/tools', [
    'argument-validator',
    'deadline-queue',
    'define-tool',
    'define-tool-schemas',
    'executor',
    'parse-arguments',
    'tool-descriptions',
  ]),
  ...inFolder('src/tools/builtin/calculator', [
    'calculator-arithmetic',
    'calculator-evaluate',
    'calculator-functions',
    'calculator-lexer',
    'calculator-libm',
    'calculator-numbers',
    'calculator-parser',
    'calculator-property',
    'calculator-python',
    'calculator',
  ]),
  ...inFolder('src/tools/builtin/file-read', ['file-read', 'file-read-hardening']),
  ...inFolder('src/tools/builtin', ['llm', 'retrieval']),
  ...inFolder('src/tools/builtin/sandbox', [
    'sandbox-limits',
    'sandbox-seccomp',
    'sandbox-session',
  ]),
  ...inFolder('src/tools/builtin/web', [
    'ssrf-guard',
    'web-search-duckduckgo',
    'web-search-fetch',
    'web-search-html',
    'web-search',
  ]),
  ...inFolder('src/web', ['api-client', 'chat-state', 'format', 'sse-parser', 'timeline-layout']),
  ...inFolder('test', ['architecture', 'engine-contract']),
  ...inFolder('test/support', ['postgres-server']),
];

/** The project of `SHARED_WORKER_FILES`. */
const SHARED_PROJECT = 'shared-worker';

/**
 * vitest's order (failed, then slowest by its cache, then largest), with `SLOW_FILES_FIRST` moved to the front
 * and the shared-worker files last, in one block: a worker is reused only while the next file in the queue is
 * also one of them; at the end, their small steps fill both workers until the last second.
 */
class SlowFilesFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (spec: TestSpecification): number => {
      if (spec.project.name === SHARED_PROJECT) return SLOW_FILES_FIRST.length + 1;
      const index = SLOW_FILES_FIRST.indexOf(relative(ROOT, spec.moduleId));
      return index === -1 ? SLOW_FILES_FIRST.length : index;
    };
    const sorted = await super.sort(files);
    const order = new Map(sorted.map((spec, index) => [spec, index]));
    return sorted.sort((a, b) => rank(a) - rank(b) || (order.get(a) ?? 0) - (order.get(b) ?? 0));
  }
}

/**
 * Vite 8's oxc transformer only lowers legacy decorators; Node 20 runs no decorators at all. The registries use
 * TC39 standard decorators (as `tsc` emits them), so tests compile TypeScript with esbuild, which lowers those.
 */
function esbuildTypeScript(): Plugin {
  return {
    name: 'openjarvis:esbuild-typescript',
    enforce: 'pre',
    async transform(code, id) {
      if (!/\.[cm]?ts$/.test(id) || id.includes('/node_modules/')) return null;
      const result = await transform(code, {
        loader: 'ts',
        format: 'esm',
        target: 'es2022',
        sourcemap: true,
        sourcefile: id,
      });
      return { code: result.code, map: result.map };
    },
  };
}

// Most of the suite waits on child processes, servers and sockets: two workers on two cores halve the wall
// time (408 s -> 226 s measured here), where the default (cores - 1) would run one.
const MAX_WORKERS = Math.max(2, availableParallelism() - 1);
const EXCLUDE = ['**/*.case.test.ts', 'node_modules/**', 'dist/**', '.test-build/**'];
/** What both projects share (each project is configured in full: `extends` would concatenate include lists). */
const PROJECT = { oxc: false as const, plugins: [esbuildTypeScript()] };
const PROJECT_TEST = {
  setupFiles: ['test/setup/console-guard.ts'],
  testTimeout: 20_000,
  pool: 'threads' as const,
  maxWorkers: MAX_WORKERS,
};

export default defineConfig({
  ...PROJECT,
  test: {
    // Once per run, in the root (a project's own globalSetup would run again for that project).
    globalSetup: ['test/support/cli-build.ts', 'test/support/postgres-template.ts'],
    sequence: { sequencer: SlowFilesFirstSequencer },
    maxWorkers: MAX_WORKERS,
    projects: [
      {
        ...PROJECT,
        test: {
          ...PROJECT_TEST,
          name: 'isolated',
          include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
          exclude: [...EXCLUDE, ...SHARED_WORKER_FILES],
        },
      },
      {
        ...PROJECT,
        test: {
          ...PROJECT_TEST,
          name: SHARED_PROJECT,
          include: [...SHARED_WORKER_FILES],
          exclude: EXCLUDE,
          isolate: false,
        },
      },
    ],
  },
});
