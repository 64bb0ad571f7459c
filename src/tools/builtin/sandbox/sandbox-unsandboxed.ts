import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Clock } from '../../../core/index.js';
import type { SandboxBackend } from './sandbox-backend.js';
import type { SandboxLimits, SandboxSlots } from './sandbox-limits.js';

import { runChild } from './sandbox-process.js';

/** What the explicitly allowed degraded mode needs. */
export interface UnsandboxedBackendOptions {
  readonly pythonPath: string;
  /** Used for rlimits when present; without it the interpreter runs without rlimits. */
  readonly prlimitPath: string | undefined;
  readonly limits: SandboxLimits;
  readonly slots: SandboxSlots;
  readonly clock: Clock;
}

/**
 * The degraded mode the user must opt into: `python3 -I` with an empty environment, a fresh working folder,
 * rlimits, the timeout and the output caps, but no filesystem, network or process isolation.
 */
export function createUnsandboxedBackend(options: UnsandboxedBackendOptions): SandboxBackend {
  const prefix = (timeoutMs: number): string[] =>
    options.prlimitPath === undefined
      ? []
      : [
          options.prlimitPath,
          `--as=${options.limits.addressSpaceBytes}`,
          cpuLimit(timeoutMs),
          `--fsize=${options.limits.fileSizeBytes}`,
          `--nofile=${options.limits.openFiles}`,
          '--core=0',
          '--',
        ];
  return {
    name: 'unsandboxed',
    seccomp: false,
    run: (request) =>
      options.slots.run(async () => {
        const cwd = await mkdtemp(join(tmpdir(), 'jarvis-code-'));
        try {
          const [command, ...args] = [...prefix(request.timeoutMs), options.pythonPath, '-I', '-'];
          return await runChild({
            command: command ?? options.pythonPath,
            args,
            stdin: request.code,
            cwd,
            timeoutMs: request.timeoutMs,
            maxStreamBytes: options.limits.maxStreamBytes,
            ...(request.signal ? { signal: request.signal } : {}),
            clock: options.clock,
          });
        } finally {
          await rm(cwd, { recursive: true, force: true });
        }
      }),
  };
}

/** The `--cpu=soft:hard` prlimit argument: SIGXCPU one second after the wall timeout, SIGKILL a second later. */
function cpuLimit(timeoutMs: number): string {
  const soft = Math.ceil(timeoutMs / 1000) + 1;
  return `--cpu=${soft}:${soft + 1}`;
}
