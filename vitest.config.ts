import { availableParallelism } from 'node:os';
import { transform } from 'esbuild';
import type { Plugin } from 'vite';
import { defineConfig } from 'vitest/config';

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
    // Most of the suite waits on child processes, servers and sockets: two workers on two cores halve the wall
    // time (408 s -> 226 s measured here), where the default (cores - 1) would run one.
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});
