import { afterEach, beforeEach } from 'vitest';

/**
 * Only `src/cli/` may print. Library code that writes to the console makes a test fail, so stray logging never
 * reaches a user's terminal (tests that exercise printing capture it through their own streams).
 */
const methods = ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const;
const originals = new Map<string, (...args: unknown[]) => void>();
let printed: string[] = [];

beforeEach(() => {
  printed = [];
  for (const method of methods) {
    originals.set(method, console[method]);
    console[method] = (...args: unknown[]) => {
      printed.push(`console.${method}: ${args.map(String).join(' ')}`);
    };
  }
});

afterEach(() => {
  for (const method of methods) {
    const original = originals.get(method);
    if (original !== undefined) console[method] = original;
  }
  if (printed.length > 0) {
    throw new Error(`Unexpected console output during the test:\n${printed.join('\n')}`);
  }
});
