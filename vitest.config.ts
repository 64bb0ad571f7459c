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
  'src/tools/builtin/sandbox/sandbox-pyodide-hostile.test.ts',
  'test/cli/models.test.ts',
  'src/cli/first-run.test.ts',
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

/** vitest's order (failed, then slowest by its cache, then largest), with `SLOW_FILES_FIRST` moved to the front. */
class SlowFilesFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (spec: TestSpecification): number => {
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

export default defineConfig({
  oxc: false,
  plugins: [esbuildTypeScript()],
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    exclude: ['**/*.case.test.ts', 'node_modules/**', 'dist/**', '.test-build/**'],
    setupFiles: ['test/setup/console-guard.ts'],
    globalSetup: ['test/support/cli-build.ts'],
    testTimeout: 20_000,
    pool: 'threads',
    sequence: { sequencer: SlowFilesFirstSequencer },
    // Most of the suite waits on child processes, servers and sockets: two workers on two cores halve the wall
    // time (408 s -> 226 s measured here), where the default (cores - 1) would run one.
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});
