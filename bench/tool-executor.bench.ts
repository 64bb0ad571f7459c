import type { ToolContext } from '../src/index.js';
import type { BenchSuite } from './harness.js';
import { library } from './library.js';

const { defineTool, EventBus, ToolExecutor } = library;

const noop = defineTool({
  name: 'noop',
  description: 'Does nothing.',
  parameters: {
    type: 'object',
    properties: { text: { type: 'string' }, count: { type: 'integer' } },
    required: ['text'],
  },
  execute: () => 'ok',
});

const args = { text: 'hello', count: 3 };
const argumentsJson = JSON.stringify(args);
const context: ToolContext = { signal: new AbortController().signal };

const quiet = new ToolExecutor([noop]);
const bus = new EventBus();
let events = 0;
bus.subscribe('tool_call_start', () => {
  events += 1;
});
bus.subscribe('tool_call_end', () => {
  events += 1;
});
const observed = new ToolExecutor([noop], { bus });
const call = { id: 'call_1', name: 'noop', arguments: argumentsJson };

/** ToolExecutor dispatch (parse, validate, timeout, events, timing) against calling the tool directly. */
export const toolExecutorSuite: BenchSuite = {
  name: 'ToolExecutor dispatch of a no-op tool',
  goal: 'executor overhead at most 5 µs per call at the median (overhead column of the executor rows)',
  cases: [
    { name: 'direct tool.execute()', run: () => noop.execute(args, context) },
    {
      name: 'executor.execute()',
      baseline: 'direct tool.execute()',
      run: () => quiet.execute(call),
    },
    {
      name: 'executor.execute() + bus with 2 subscribers',
      baseline: 'direct tool.execute()',
      run: () => observed.execute(call),
    },
  ],
};

/** Keeps the subscriber's work observable so it cannot be optimised away. */
export function eventsSeen(): number {
  return events;
}
