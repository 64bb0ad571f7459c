import { execFile } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const run = promisify(execFile);

// The executor's 30-second timeout timer must not keep a finished program (such as the CLI) alive.
const SCRIPT = `
import { CalculatorTool, ToolExecutor } from './src/index.ts';
const executor = new ToolExecutor([new CalculatorTool()]);
const result = await executor.execute({ id: 'c', name: 'calculator', arguments: '{"expression": "6*7"}' });
console.log(result.content);
`;

describe('a program that used the ToolExecutor', () => {
  it('exits as soon as its work is done, not when the tool timeout would have passed', async () => {
    const started = Date.now();
    const { stdout } = await run(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', SCRIPT],
      {
        cwd: ROOT,
        timeout: 20_000,
      },
    );
    expect(stdout).toBe('42\n');
    // The default tool timeout is 30 s; a lingering timer would hold the process at least that long.
    expect(Date.now() - started).toBeLessThan(20_000);
  });
});
