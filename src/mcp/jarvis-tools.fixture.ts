// Tools the server tests serve besides calculator and think (not a test file).
import type { Tool } from '../core/index.js';
import { defineTool } from '../tools/index.js';

/** Hooks an in-process test can use to see a `wait` call start and be cancelled. */
export interface FixtureToolHooks {
  readonly onWaitStart?: () => void;
  readonly onWaitAborted?: (reason: unknown) => void;
}

/** `slow` (times out after 200 ms), `wait` (runs until cancelled) and `guarded` (requires confirmation). */
export function fixtureTools(hooks: FixtureToolHooks = {}): Tool[] {
  const untilAborted = (signal: AbortSignal): Promise<unknown> =>
    new Promise((resolve) => signal.addEventListener('abort', () => resolve(signal.reason)));
  return [
    defineTool({
      name: 'slow',
      description: 'Never finishes on its own.',
      timeoutMs: 200,
      execute: async (_args, { signal }) => {
        await untilAborted(signal);
        return 'too late';
      },
    }),
    defineTool({
      name: 'wait',
      description: 'Runs until cancelled.',
      execute: async (_args, { signal }) => {
        hooks.onWaitStart?.();
        hooks.onWaitAborted?.(await untilAborted(signal));
        return 'stopped';
      },
    }),
    defineTool({
      name: 'guarded',
      description: 'Does something a person must approve.',
      requiresConfirmation: true,
      parameters: {
        type: 'object',
        properties: { target: { type: 'string' } },
        required: ['target'],
      },
      execute: (args) => `guarded action done on ${String(args.target)}`,
    }),
  ];
}
