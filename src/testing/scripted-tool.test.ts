import { describe, expect, it } from 'vitest';
import { ToolExecutor } from '../tools/index.js';
import { ScriptedTool } from './scripted-tool.js';

describe('ScriptedTool', () => {
  it('answers with its steps in order and records the arguments', async () => {
    const tool = new ScriptedTool({
      name: 'lookup',
      parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
      steps: ['first', (args) => `second for ${String(args.q)}`, new Error('third fails')],
    });
    const executor = new ToolExecutor([tool]);
    const contents = [];
    for (const q of ['a', 'b', 'c']) {
      contents.push((await executor.execute({ id: q, name: 'lookup', arguments: { q } })).content);
    }
    expect(contents).toEqual(['first', 'second for b', 'Tool execution error: third fails']);
    expect(tool.calls).toEqual([{ q: 'a' }, { q: 'b' }, { q: 'c' }]);
    expect(() => tool.assertAllStepsConsumed()).not.toThrow();
  });

  it('is strict about leftover steps and calls beyond the script', async () => {
    const leftover = new ScriptedTool({ name: 'a', steps: ['x', 'y'] });
    await leftover.execute({});
    expect(() => leftover.assertAllStepsConsumed()).toThrow(
      "ScriptedTool 'a': 1 scripted step(s) were never used",
    );
    const extra = new ScriptedTool({ name: 'b', steps: [] });
    expect(await extra.execute({ n: 1 })).toMatchObject({ success: false });
    expect(() => extra.assertAllStepsConsumed()).toThrow('1 unexpected call(s): [{"n":1}]');
  });
});
