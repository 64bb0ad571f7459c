import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { EventBus, type JarvisEvent, type ToolContext } from '../core/index.js';
import { defineTool } from './define-tool.js';
import { ToolExecutor } from './executor.js';

const echo = defineTool({
  name: 'echo',
  description: 'Echo text.',
  parameters: {
    type: 'object',
    properties: {
      text: { type: 'string', description: 'Text to echo' },
      times: { type: 'integer', description: 'Repeat count', default: 1 },
      mode: { type: 'string', enum: ['plain', 'loud'] },
    },
    required: ['text'],
    additionalProperties: false,
  },
  execute: (args: { text: string; times: number; mode?: string }) => {
    const text = args.text.repeat(args.times);
    return args.mode === 'loud' ? text.toUpperCase() : text;
  },
});

function neverEnding(name: string, seen: { signal?: AbortSignal } = {}, timeoutMs?: number) {
  return defineTool({
    name,
    description: 'Ignores its abort signal and never returns.',
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    execute: (_args, context: ToolContext) => {
      seen.signal = context.signal;
      return new Promise<string>(() => undefined);
    },
  });
}

afterEach(() => {
  vi.useRealTimers();
});

describe('ToolExecutor.execute: arguments', () => {
  const executor = new ToolExecutor([echo]);

  it('runs a call whose arguments are JSON text', async () => {
    const result = await executor.execute({
      id: 'call_1',
      name: 'echo',
      arguments: '{"text": "hi", "times": 2}',
    });
    expect(result).toMatchObject({ toolName: 'echo', success: true, content: 'hihi' });
  });

  it('accepts arguments some engines already parsed into an object', async () => {
    const result = await executor.execute({ id: 'c', name: 'echo', arguments: { text: 'ok' } });
    expect(result).toMatchObject({ success: true, content: 'ok' });
  });

  it('fills schema defaults and coerces quoted scalars that small models send', async () => {
    const result = await executor.execute({
      id: 'c',
      name: 'echo',
      arguments: '{"text": "ab", "times": "3"}',
    });
    expect(result).toMatchObject({ success: true, content: 'ababab' });
  });

  it('reports malformed JSON so the model can repair it', async () => {
    const result = await executor.execute({ id: 'c', name: 'echo', arguments: '{"text": "hi"' });
    expect(result.success).toBe(false);
    expect(result).toMatchObject({ errorCode: 'invalid_arguments' });
    expect(result.content).toMatch(
      /^Invalid arguments JSON: .+Send the arguments as one JSON object/,
    );
  });

  it.each([
    ['42', 'integer'],
    ['4.5', 'number'],
    ['null', 'null'],
    ['[]', 'array'],
    ['"text"', 'string'],
    ['true', 'boolean'],
  ])('refuses non-object JSON %s', async (text, typeName) => {
    const result = await executor.execute({ id: 'c', name: 'echo', arguments: text });
    expect(result).toMatchObject({
      success: false,
      errorCode: 'invalid_arguments',
      content: `Invalid arguments: expected a JSON object, got ${typeName}.`,
    });
  });

  it('refuses non-object values handed over directly', async () => {
    for (const value of [7, null, ['a'], true]) {
      const result = await executor.execute({ id: 'c', name: 'echo', arguments: value });
      expect(result).toMatchObject({ success: false, errorCode: 'invalid_arguments' });
    }
  });

  it('treats empty argument text as an empty object (then validates it)', async () => {
    const result = await executor.execute({ id: 'c', name: 'echo', arguments: '  ' });
    expect(result.content).toBe(
      "Invalid arguments for tool 'echo':\n- missing required argument 'text' (string): Text to echo\n" +
        'Expected arguments: text (string, required), times (integer), mode (string)',
    );
  });

  it('names the wrong argument and what is expected', async () => {
    const wrongType = await executor.execute({
      id: 'c',
      name: 'echo',
      arguments: '{"text": ["a"]}',
    });
    expect(wrongType.content).toContain(`- argument 'text' must be string, got array ["a"]`);
    const notInteger = await executor.execute({
      id: 'c',
      name: 'echo',
      arguments: '{"text": "a", "times": "many"}',
    });
    expect(notInteger.content).toContain(`- argument 'times' must be integer, got string "many"`);
    const badEnum = await executor.execute({
      id: 'c',
      name: 'echo',
      arguments: '{"text": "a", "mode": "quiet"}',
    });
    expect(badEnum.content).toContain(
      `- argument 'mode' must be one of "plain", "loud", got string "quiet"`,
    );
    const extra = await executor.execute({
      id: 'c',
      name: 'echo',
      arguments: '{"text": "a", "colour": 1}',
    });
    expect(extra.content).toContain(`- unknown argument 'colour' (accepted: text, times, mode)`);
    for (const result of [wrongType, notInteger, badEnum, extra]) {
      expect(result).toMatchObject({ success: false, errorCode: 'invalid_arguments' });
    }
  });

  it('lists several problems at once', async () => {
    const result = await executor.execute({
      id: 'c',
      name: 'echo',
      arguments: '{"times": "x", "mode": 3}',
    });
    expect(result.content).toContain("missing required argument 'text'");
    expect(result.content).toContain("argument 'times' must be integer");
    expect(result.content).toContain("argument 'mode'");
  });
});

describe('ToolExecutor.execute: dispatch and failures', () => {
  it('names the available tools for an unknown tool', async () => {
    const executor = new ToolExecutor([echo, neverEnding('slow')]);
    const result = await executor.execute({ id: 'c', name: 'calculatr', arguments: '{}' });
    expect(result).toMatchObject({
      success: false,
      errorCode: 'unknown_tool',
      toolName: 'calculatr',
      content: 'Unknown tool: calculatr (available tools: echo, slow)',
    });
    const empty = await new ToolExecutor([]).execute({ id: 'c', name: 'x' });
    expect(empty.content).toBe('Unknown tool: x (no tools are available)');
  });

  it('turns a throwing tool into a failed result', async () => {
    const broken = defineTool({
      name: 'broken',
      description: 'Throws.',
      execute: () => {
        throw new Error('disk on fire');
      },
    });
    const result = await new ToolExecutor([broken]).execute({
      id: 'c',
      name: 'broken',
      arguments: '{}',
    });
    expect(result).toMatchObject({
      success: false,
      errorCode: 'execution_failed',
      content: 'Tool execution error: disk on fire',
    });
  });

  it('passes a tool-reported failure through with its code', async () => {
    const picky = defineTool({
      name: 'picky',
      description: 'Reports a failure.',
      execute: () => ({ content: 'nothing found', success: false }),
    });
    const result = await new ToolExecutor([picky]).execute({ id: 'c', name: 'picky' });
    expect(result).toMatchObject({
      success: false,
      errorCode: 'tool_error',
      content: 'nothing found',
    });
  });

  it('normalises whatever a plain-JS tool returns', async () => {
    const values: unknown[] = [undefined, 42, { content: { a: 1 } }, 'text'];
    const sloppy = {
      toolId: 'sloppy',
      spec: { name: 'sloppy', description: 'Returns odd things.' },
      execute: async () => values.shift(),
    };
    // biome-ignore lint/suspicious/noExplicitAny: a deliberately ill-typed tool, as plain JavaScript could write it.
    const executor = new ToolExecutor([sloppy as any]);
    const contents: string[] = [];
    for (let i = 0; i < 4; i += 1) {
      const result = await executor.execute({ id: 'c', name: 'sloppy' });
      expect(result.success).toBe(true);
      contents.push(result.content);
    }
    expect(contents).toEqual(['', '42', '{"a":1}', 'text']);
  });

  it('caps long output with a truncation marker', async () => {
    const chatty = defineTool({
      name: 'chatty',
      description: 'Talks a lot.',
      execute: () => 'x'.repeat(250),
    });
    const executor = new ToolExecutor([chatty], { maxOutputChars: 100 });
    const result = await executor.execute({ id: 'c', name: 'chatty' });
    expect(result.content).toBe(
      `${'x'.repeat(100)}\n\n[output truncated: showing the first 100 of 250 characters]`,
    );
    expect(result.metadata).toMatchObject({ truncated: true, original_length: 250 });
    expect(result.success).toBe(true);
  });

  it('caps at 100,000 characters by default', async () => {
    const huge = defineTool({
      name: 'huge',
      description: 'Very long.',
      execute: () => 'y'.repeat(100_001),
    });
    const exact = defineTool({
      name: 'exact',
      description: 'Just fits.',
      execute: () => 'z'.repeat(100_000),
    });
    const executor = new ToolExecutor([huge, exact]);
    expect((await executor.execute({ id: 'c', name: 'huge' })).content).toContain(
      '[output truncated: showing the first 100000 of 100001 characters]',
    );
    expect((await executor.execute({ id: 'c', name: 'exact' })).content).toHaveLength(100_000);
  });

  it('measures latency on a monotonic clock and overwrites what the tool claimed', async () => {
    let now = 1000;
    const clock = { nowMs: () => 0, monotonicMs: () => now };
    const claims = defineTool({
      name: 'claims',
      description: 'Claims a latency.',
      execute: () => {
        now += 250;
        return 'done';
      },
    });
    const result = await new ToolExecutor([claims], { clock }).execute({ id: 'c', name: 'claims' });
    expect(result.latencySeconds).toBe(0.25);
    const real = await new ToolExecutor([echo]).execute({
      id: 'c',
      name: 'echo',
      arguments: '{"text":"a"}',
    });
    expect(real.latencySeconds).toBeGreaterThan(0);
  });

  it('never throws, even when argument parsing sees something exotic', async () => {
    const executor = new ToolExecutor([echo]);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    await expect(
      executor.execute({ id: 'c', name: 'echo', arguments: cyclic }),
    ).resolves.toMatchObject({
      success: false,
      errorCode: 'invalid_arguments',
    });
    await expect(executor.execute({ name: 'echo', arguments: Symbol('x') })).resolves.toMatchObject(
      { success: false },
    );
  });
});

describe('ToolExecutor.execute: timeouts and cancellation', () => {
  it('yields a timed-out result on time when the tool ignores its signal, and aborts the tool signal', async () => {
    vi.useFakeTimers();
    const seen: { signal?: AbortSignal } = {};
    const bus = new EventBus({ recordHistory: true });
    const executor = new ToolExecutor([neverEnding('stuck', seen)], {
      bus,
      defaultTimeoutMs: 5_000,
    });
    const pending = executor.execute({ id: 'call_9', name: 'stuck' });
    await vi.advanceTimersByTimeAsync(4_999);
    let settled = false;
    void pending.then(() => {
      settled = true;
    });
    await Promise.resolve();
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    const result = await pending;
    expect(result).toMatchObject({
      success: false,
      errorCode: 'timed_out',
      content: "Tool 'stuck' timed out after 5s.",
    });
    expect(seen.signal?.aborted).toBe(true);
    expect(bus.history.map((event) => event.type)).toEqual([
      'tool_call_start',
      'tool_timeout',
      'tool_call_end',
    ]);
    expect(bus.history[1]?.data).toEqual({ toolName: 'stuck', callId: 'call_9', timeoutMs: 5_000 });
  });

  it('uses the spec timeout before the executor default (30 s when not set)', async () => {
    vi.useFakeTimers();
    const executor = new ToolExecutor([neverEnding('quick', {}, 200), neverEnding('default')]);
    const quick = executor.execute({ id: 'a', name: 'quick' });
    const slow = executor.execute({ id: 'b', name: 'default' });
    await vi.advanceTimersByTimeAsync(200);
    expect((await quick).content).toBe("Tool 'quick' timed out after 0.2s.");
    await vi.advanceTimersByTimeAsync(29_800);
    expect((await slow).content).toBe("Tool 'default' timed out after 30s.");
  });

  it('resolves as cancelled when the caller aborts, before or during the call', async () => {
    const seen: { signal?: AbortSignal } = {};
    const executor = new ToolExecutor([neverEnding('stuck', seen)]);
    const before = new AbortController();
    before.abort();
    const early = await executor.execute({ id: 'c', name: 'stuck' }, { signal: before.signal });
    expect(early).toMatchObject({ success: false, errorCode: 'cancelled' });
    expect(seen.signal).toBeUndefined();

    const during = new AbortController();
    const pending = executor.execute({ id: 'c', name: 'stuck' }, { signal: during.signal });
    await vi.waitFor(() => expect(seen.signal).toBeDefined());
    during.abort(new Error('user pressed ctrl-c'));
    expect(await pending).toMatchObject({
      success: false,
      errorCode: 'cancelled',
      content: "Tool 'stuck' was cancelled.",
    });
    expect(seen.signal?.aborted).toBe(true);
  });

  it('drops the late rejection of a tool that failed after its deadline', async () => {
    vi.useFakeTimers();
    let rejectLater: (error: Error) => void = () => undefined;
    const late = defineTool({
      name: 'late',
      description: 'Fails after the deadline.',
      timeoutMs: 10,
      execute: () =>
        new Promise<string>((_resolve, reject) => {
          rejectLater = reject;
        }),
    });
    const pending = new ToolExecutor([late]).execute({ id: 'c', name: 'late' });
    await vi.advanceTimersByTimeAsync(10);
    expect(await pending).toMatchObject({ errorCode: 'timed_out' });
    rejectLater(new Error('too late'));
    await Promise.resolve();
  });
});

describe('ToolExecutor.execute: confirmation', () => {
  const dangerous = defineTool({
    name: 'delete_file',
    description: 'Deletes a file.',
    requiresConfirmation: true,
    parameters: z.object({ path: z.string() }),
    execute: ({ path }) => `deleted ${path}`,
  });

  it('refuses tools that need confirmation when there is no callback', async () => {
    const result = await new ToolExecutor([dangerous]).execute({
      id: 'c',
      name: 'delete_file',
      arguments: '{"path":"/a"}',
    });
    expect(result).toMatchObject({
      success: false,
      errorCode: 'confirmation_required',
      content:
        "Tool 'delete_file' requires confirmation but no confirmation callback is available.",
    });
  });

  it('asks the callback with the parsed arguments and obeys its answer', async () => {
    const asked: unknown[] = [];
    const answers = [false, true];
    const executor = new ToolExecutor([dangerous], {
      confirm: async (request) => {
        asked.push({ tool: request.toolName, args: request.arguments, id: request.callId });
        return answers.shift() ?? false;
      },
    });
    const denied = await executor.execute({
      id: 'c1',
      name: 'delete_file',
      arguments: '{"path":"/a"}',
    });
    expect(denied).toMatchObject({
      success: false,
      errorCode: 'confirmation_denied',
      content: "Tool 'delete_file' execution denied by user.",
    });
    const approved = await executor.execute({
      id: 'c2',
      name: 'delete_file',
      arguments: '{"path":"/b"}',
    });
    expect(approved).toMatchObject({ success: true, content: 'deleted /b' });
    expect(asked).toEqual([
      { tool: 'delete_file', args: { path: '/a' }, id: 'c1' },
      { tool: 'delete_file', args: { path: '/b' }, id: 'c2' },
    ]);
  });

  it('treats a throwing callback as a refusal and never asks for tools without the flag', async () => {
    let asked = 0;
    const executor = new ToolExecutor([dangerous, echo], {
      confirm: () => {
        asked += 1;
        throw new Error('no terminal');
      },
    });
    const result = await executor.execute({
      id: 'c',
      name: 'delete_file',
      arguments: '{"path":"/a"}',
    });
    expect(result).toMatchObject({
      errorCode: 'confirmation_denied',
      content: "Tool 'delete_file' was not approved: no terminal",
    });
    await executor.execute({ id: 'c', name: 'echo', arguments: '{"text":"x"}' });
    expect(asked).toBe(1);
  });
});

describe('ToolExecutor events', () => {
  it('publishes start and end with tool name, arguments, success and latency', async () => {
    const bus = new EventBus({ recordHistory: true });
    const executor = new ToolExecutor([echo], { bus });
    await executor.execute({ id: 'call_1', name: 'echo', arguments: '{"text": "hi"}' });
    const [start, end] = bus.history as [
      JarvisEvent<'tool_call_start'>,
      JarvisEvent<'tool_call_end'>,
    ];
    expect(start.type).toBe('tool_call_start');
    expect(start.data).toEqual({
      toolName: 'echo',
      callId: 'call_1',
      arguments: { text: 'hi', times: 1 },
    });
    expect(end.type).toBe('tool_call_end');
    expect(end.data).toMatchObject({ toolName: 'echo', callId: 'call_1', success: true });
    expect(end.data.latencySeconds).toBeGreaterThan(0);
    expect(end.data.result.content).toBe('hi');
  });

  it('reports failed calls too, with their error code and raw arguments', async () => {
    const bus = new EventBus({ recordHistory: true });
    const executor = new ToolExecutor([echo], { bus, generateId: () => 'generated_1' });
    await executor.execute({ name: 'nope', arguments: '{broken' });
    expect(bus.history.map((event) => [event.type, event.data])).toEqual([
      ['tool_call_start', { toolName: 'nope', callId: 'generated_1', arguments: '{broken' }],
      [
        'tool_call_end',
        expect.objectContaining({ success: false, errorCode: 'invalid_arguments' }),
      ],
    ]);
  });
});

describe('ToolExecutor.executeAll', () => {
  it('runs calls concurrently up to the limit and returns results in call order', async () => {
    let running = 0;
    let peak = 0;
    const releases: Array<() => void> = [];
    const gate = defineTool({
      name: 'gate',
      description: 'Waits to be released.',
      parameters: z.object({ n: z.number() }),
      execute: async ({ n }) => {
        running += 1;
        peak = Math.max(peak, running);
        await new Promise<void>((resolve) => releases.push(resolve));
        running -= 1;
        return `done ${n}`;
      },
    });
    const executor = new ToolExecutor([gate]);
    const calls = [0, 1, 2, 3, 4].map((n) => ({
      id: `c${n}`,
      name: 'gate',
      arguments: `{"n": ${n}}`,
    }));
    const pending = executor.executeAll(calls, { concurrency: 2 });
    await vi.waitFor(() => expect(releases).toHaveLength(2));
    // Release out of order: the second call finishes first.
    releases[1]?.();
    releases[0]?.();
    await vi.waitFor(() => expect(releases).toHaveLength(4));
    for (const release of releases.slice(2)) release();
    await vi.waitFor(() => expect(releases).toHaveLength(5));
    releases[4]?.();
    const results = await pending;
    expect(results.map((result) => result.content)).toEqual([
      'done 0',
      'done 1',
      'done 2',
      'done 3',
      'done 4',
    ]);
    expect(peak).toBe(2);
  });

  it('returns an empty list for no calls', async () => {
    expect(await new ToolExecutor([echo]).executeAll([])).toEqual([]);
  });
});

describe('ToolExecutor construction and listings', () => {
  const think = defineTool({ name: 'think', description: 'Think.', execute: () => '' });

  it('lists specs and OpenAI tools in the order given', () => {
    const executor = new ToolExecutor([echo, think]);
    expect(executor.availableTools().map((spec) => spec.name)).toEqual(['echo', 'think']);
    expect(executor.getOpenAITools().map((tool) => tool.function.name)).toEqual(['echo', 'think']);
    expect(executor.getOpenAITools()[0]).toEqual({
      type: 'function',
      function: { name: 'echo', description: 'Echo text.', parameters: echo.spec.parameters },
    });
    expect(new ToolExecutor([]).getOpenAITools()).toEqual([]);
    expect(executor.has('echo')).toBe(true);
    expect(executor.has('nope')).toBe(false);
  });

  it('refuses duplicate names, invalid schemas and bad options', () => {
    expect(() => new ToolExecutor([echo, echo])).toThrow("Two tools are named 'echo'");
    const badSchema = defineTool({
      name: 'bad',
      description: 'Bad schema.',
      parameters: { type: 'not-a-type' },
      execute: () => '',
    });
    expect(() => new ToolExecutor([badSchema])).toThrow(
      "Tool 'bad' has an invalid parameters JSON Schema",
    );
    expect(() => new ToolExecutor([echo], { defaultTimeoutMs: 0 })).toThrow(
      'defaultTimeoutMs must be a positive number',
    );
    expect(() => new ToolExecutor([echo], { maxOutputChars: -1 })).toThrow(
      'maxOutputChars must be a positive number',
    );
  });
});
