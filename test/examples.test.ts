import { execFile } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const run = promisify(execFile);

/** Runs an example the way a reader would (`npx tsx examples/x.ts`) and returns its stdout. */
async function runExample(name: string): Promise<string> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', `examples/${name}.ts`], {
    cwd: ROOT,
    // Generous: six tsx processes start at once after the first, and a loaded machine shares two cores among them.
    timeout: 60_000,
  });
  return stdout;
}

/**
 * The first example, run alone: it fills tsx's transform cache (about 7 s of CPU with a cold cache), so the
 * others, started after it, read the cache (about 4 s each) instead of all compiling the same sources at once.
 */
let first: Promise<string> | undefined;
const firstExample = (): Promise<string> => {
  first ??= runExample('calculator');
  return first;
};

/** Runs `name` once the first example has filled the cache (whether or not that one passed). */
async function runAfterFirst(name: string): Promise<string> {
  await firstExample().catch(() => undefined);
  return runExample(name);
}

describe.concurrent('examples/ (the tools.md examples as runnable TypeScript)', {
  timeout: 120_000,
}, () => {
  it('calculator prints 21.0 and true', async () => {
    expect(await firstExample()).toBe('21.0\ntrue\n');
  });

  it('think echoes the thought', async () => {
    expect(await runAfterFirst('think')).toBe('Let me break this problem into steps...\ntrue\n');
  });

  it('tool-executor lists the OpenAI tools, reports the call on the bus and prints 4', async () => {
    expect(await runAfterFirst('tool-executor')).toBe(
      'calculator, think\n[tool_call_end] calculator success=true\n4\n',
    );
  });

  it('tool-descriptions prints the Markdown sections', async () => {
    const output = await runAfterFirst('tool-descriptions');
    expect(output).toContain('### calculator\nEvaluate a mathematical expression safely.');
    expect(output).toContain(
      '\n\n### think\nA reasoning scratchpad. Think through a problem step by step. Input is echoed.\nCategory: reasoning\nParameters:\n  - thought (string, required): Your reasoning or thought process.\n',
    );
  });

  it('custom-tool registers my_tool with the decorator and runs it by key', async () => {
    expect(await runAfterFirst('custom-tool')).toBe('my_tool\nProcessed: this data\n');
  });

  it('zod-tool validates typed arguments and shows the model its mistake', async () => {
    expect(await runAfterFirst('zod-tool')).toBe(
      "Sunny in Oslo for the next 1 day(s).\nInvalid arguments for tool 'weather':\n- argument 'days' must be <= 7 (got number 30)\nExpected arguments: city (string, required), days (integer)\n",
    );
  });

  it('orchestrator runs a tool-calling loop against the scripted HTTP server', async () => {
    expect(await runAfterFirst('orchestrator')).toBe(
      '[tool] calculator -> 51.0\n15% of 340 is 51.\nturns=2 tool calls=1\n',
    );
  });
});
