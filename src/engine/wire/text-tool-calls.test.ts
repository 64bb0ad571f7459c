import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isPlainObject, type ToolCall } from '../../core/index.js';
import { extractTextToolCalls, type TextToolCalls } from './text-tool-calls.js';

const OFFERED = ['calculator', 'get_weather', 'brave_search', 'think'] as const;

/** Ids `t1`, `t2`, … so results can be compared whole. */
function counter(): () => string {
  let next = 0;
  return () => {
    next += 1;
    return `t${next}`;
  };
}

function extract(text: string, offered: readonly string[] = OFFERED): TextToolCalls | undefined {
  return extractTextToolCalls(text, offered, { generateId: counter() });
}

function call(name: string, args: string, id = 't1'): ToolCall {
  return { id, name, arguments: args };
}

const TWO_PLUS_TWO = '{"expression":"2+2"}';

describe('extractTextToolCalls: Hermes / Qwen <tool_call> blocks', () => {
  it('reads a Qwen 2.5 block', () => {
    const text =
      '<tool_call>\n{"name": "get_weather", "arguments": {"location": "San Francisco, CA, USA", "unit": "celsius"}}\n</tool_call>';
    expect(extract(text)).toEqual({
      content: '',
      toolCalls: [call('get_weather', '{"location":"San Francisco, CA, USA","unit":"celsius"}')],
    });
  });

  it('reads several blocks and keeps the text around them', () => {
    const text = [
      "I'll look up the weather and do the sum.",
      '',
      '<tool_call>',
      '{"name": "get_weather", "arguments": {"location": "Paris"}}',
      '</tool_call>',
      '<tool_call>',
      '{"name": "calculator", "arguments": {"expression": "2+2"}}',
      '</tool_call>',
      'One moment.',
    ].join('\n');
    expect(extract(text)).toEqual({
      content: "I'll look up the weather and do the sum.\n\nOne moment.",
      toolCalls: [
        call('get_weather', '{"location":"Paris"}', 't1'),
        call('calculator', TWO_PLUS_TWO, 't2'),
      ],
    });
  });

  it('reads a block whose closing tag is missing at the end (a stop sequence ate it)', () => {
    const text =
      'Let me calculate.\n<tool_call>\n{"name": "calculator", "arguments": {"expression": "2+2"}}\n';
    expect(extract(text)).toEqual({
      content: 'Let me calculate.',
      toolCalls: [call('calculator', TWO_PLUS_TWO)],
    });
  });

  it('tolerates single quotes, trailing commas, Python literals and a fence inside the block', () => {
    const text =
      "<tool_call>\n```json\n{'name': 'think', 'arguments': {'thought': 'it\\'s \"fine\"', 'deep': True, 'x': None,},}\n```\n</tool_call>";
    expect(extract(text)?.toolCalls).toEqual([
      call('think', '{"thought":"it\'s \\"fine\\"","deep":true,"x":null}'),
    ]);
  });

  it('is not cut by a closing tag inside an argument, and drops a stray brace before the tag', () => {
    const inside =
      '<tool_call>\n{"name": "think", "arguments": {"thought": "write </tool_call> literally"}}\n</tool_call>\nDone.';
    expect(extract(inside)).toEqual({
      content: 'Done.',
      toolCalls: [call('think', '{"thought":"write </tool_call> literally"}')],
    });
    const doubled =
      '<tool_call>\n{"name": "calculator", "arguments": {"expression": "2+2"}}}\n</tool_call>';
    expect(extract(doubled)).toEqual({
      content: '',
      toolCalls: [call('calculator', TWO_PLUS_TWO)],
    });
  });

  it('keeps a block that names an unknown tool in the content', () => {
    const unknown = '<tool_call>\n{"name": "delete_files", "arguments": {}}\n</tool_call>';
    expect(extract(unknown)).toBeUndefined();
    const mixed = `${unknown}\n<tool_call>\n{"name": "calculator", "arguments": {"expression": "2+2"}}\n</tool_call>`;
    expect(extract(mixed)).toEqual({
      content: unknown,
      toolCalls: [call('calculator', TWO_PLUS_TWO)],
    });
  });

  it('keeps arguments given as JSON text, and refuses text that is not a JSON object', () => {
    const asText =
      '<tool_call>{"name": "calculator", "arguments": "{\\"expression\\": \\"2+2\\"}"}</tool_call>';
    expect(extract(asText)?.toolCalls).toEqual([call('calculator', '{"expression": "2+2"}')]);
    const notAnObject = '<tool_call>{"name": "calculator", "arguments": "2+2"}</tool_call>';
    expect(extract(notAnObject)).toBeUndefined();
    const list = '<tool_call>{"name": "calculator", "arguments": [1, 2]}</tool_call>';
    expect(extract(list)).toBeUndefined();
  });

  it('gives a call without arguments an empty object', () => {
    expect(extract('<tool_call>\n{"name": "think"}\n</tool_call>')?.toolCalls).toEqual([
      call('think', '{}'),
    ]);
  });
});

describe('extractTextToolCalls: Llama 3.x', () => {
  it('reads Llama 3.1 <|python_tag|> JSON with `parameters`, ending in <|eom_id|>', () => {
    const text =
      '<|python_tag|>{"name": "calculator", "parameters": {"expression": "2+2"}}<|eom_id|>';
    expect(extract(text)).toEqual({ content: '', toolCalls: [call('calculator', TWO_PLUS_TWO)] });
  });

  it('reads several python_tag calls separated by semicolons, ending in <|eot_id|>', () => {
    const text =
      '<|python_tag|>{"name": "calculator", "parameters": {"expression": "2+2"}}; {"name": "get_weather", "parameters": {"city": "Oslo"}}<|eot_id|>';
    expect(extract(text)?.toolCalls).toEqual([
      call('calculator', TWO_PLUS_TWO, 't1'),
      call('get_weather', '{"city":"Oslo"}', 't2'),
    ]);
  });

  it('reads the built-in tool form `name.call(…)`', () => {
    const text =
      '<|python_tag|>brave_search.call(query="current weather in Menlo Park, California")<|eom_id|>';
    expect(extract(text)?.toolCalls).toEqual([
      call('brave_search', '{"query":"current weather in Menlo Park, California"}'),
    ]);
  });

  it('reads Llama 3.2 bare JSON, with or without `type`', () => {
    expect(extract('{"name": "get_weather", "parameters": {"city": "Paris"}}')).toEqual({
      content: '',
      toolCalls: [call('get_weather', '{"city":"Paris"}')],
    });
    const typed =
      '{"type": "function", "name": "calculator", "parameters": {"expression": "2+2"}}<|eot_id|>';
    expect(extract(typed)?.toolCalls).toEqual([call('calculator', TWO_PLUS_TWO)]);
  });

  it('reads the Llama 3.2 pythonic list', () => {
    const text =
      "[get_weather(city='San Francisco', metric='celsius'), calculator(expression=\"2+2\")]";
    expect(extract(text)?.toolCalls).toEqual([
      call('get_weather', '{"city":"San Francisco","metric":"celsius"}', 't1'),
      call('calculator', TWO_PLUS_TWO, 't2'),
    ]);
    expect(extract('[get_weather(city="Oslo", days=3, hourly=False,)]')?.toolCalls).toEqual([
      call('get_weather', '{"city":"Oslo","days":3,"hourly":false}'),
    ]);
  });

  it('refuses pythonic calls with positional arguments or unknown names', () => {
    expect(extract('[get_weather("Oslo")]')).toBeUndefined();
    expect(extract('[print(x=1)]')).toBeUndefined();
    expect(extract('calculator(expression="2+2") gives 4')).toBeUndefined();
  });
});

describe('extractTextToolCalls: Mistral [TOOL_CALLS]', () => {
  it('reads the v0.3 list and keeps the nine-character ids Mistral templates require', () => {
    const text =
      '[TOOL_CALLS] [{"name": "get_weather", "arguments": {"location": "Paris, France", "format": "celsius"}, "id": "abc123def"}]</s>';
    expect(extract(text)).toEqual({
      content: '',
      toolCalls: [
        call('get_weather', '{"location":"Paris, France","format":"celsius"}', 'abc123def'),
      ],
    });
  });

  it('reads the variant without a space (Nemo) and several calls', () => {
    const text =
      '[TOOL_CALLS][{"name": "calculator", "arguments": {"expression": "2+2"}}, {"name": "get_weather", "arguments": {"city": "Oslo"}}]';
    expect(extract(text)?.toolCalls).toEqual([
      call('calculator', TWO_PLUS_TWO, 't1'),
      call('get_weather', '{"city":"Oslo"}', 't2'),
    ]);
  });

  it('reads `[TOOL_CALLS]name[ARGS]{…}` of newer templates, with an optional [CALL_ID]', () => {
    const text =
      'Checking.[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}[TOOL_CALLS]calculator[CALL_ID]Xy12Ab34C[ARGS]{"expression": "2+2"}';
    expect(extract(text)).toEqual({
      content: 'Checking.',
      toolCalls: [
        call('get_weather', '{"city":"Paris"}', 't1'),
        call('calculator', TWO_PLUS_TWO, 'Xy12Ab34C'),
      ],
    });
  });

  it('gives repeated model ids a fresh one', () => {
    const text =
      '[TOOL_CALLS] [{"name": "calculator", "arguments": {"expression": "1"}, "id": "abc123def"}, {"name": "calculator", "arguments": {"expression": "2"}, "id": "abc123def"}]';
    expect(extract(text)?.toolCalls.map((c) => c.id)).toEqual(['abc123def', 't1']);
  });
});

describe('extractTextToolCalls: other markers', () => {
  it('reads Granite <|tool_call|> and Phi-4 functools[…]', () => {
    const granite = '<|tool_call|>[{"arguments": {"location": "Boston"}, "name": "get_weather"}]';
    expect(extract(granite)?.toolCalls).toEqual([call('get_weather', '{"location":"Boston"}')]);
    const phi = 'functools[{"name": "get_weather", "arguments": {"location": "London"}}]';
    expect(extract(phi)?.toolCalls).toEqual([call('get_weather', '{"location":"London"}')]);
    expect(extract('I used functools.reduce here.')).toBeUndefined();
  });
});

describe('extractTextToolCalls: a reply that is only a call', () => {
  it('reads a fenced JSON object', () => {
    const text =
      '```json\n{\n  "name": "calculator",\n  "arguments": {\n    "expression": "15 * 23"\n  }\n}\n```';
    expect(extract(text)).toEqual({
      content: '',
      toolCalls: [call('calculator', '{"expression":"15 * 23"}')],
    });
  });

  it('reads a JSON list, the tool/tool_input shape, the function shape and a tool_calls message', () => {
    const list =
      '[{"name": "calculator", "arguments": {"expression": "2+2"}}, {"name": "think", "parameters": {"thought": "then answer"}}]';
    expect(extract(list)?.toolCalls).toEqual([
      call('calculator', TWO_PLUS_TWO, 't1'),
      call('think', '{"thought":"then answer"}', 't2'),
    ]);
    expect(
      extract('{"tool": "calculator", "tool_input": {"expression": "2+2"}}')?.toolCalls,
    ).toEqual([call('calculator', TWO_PLUS_TWO)]);
    const openai =
      '{"id": "call_9", "type": "function", "function": {"name": "calculator", "arguments": "{\\"expression\\":\\"2+2\\"}"}}';
    expect(extract(openai)?.toolCalls).toEqual([call('calculator', TWO_PLUS_TWO, 'call_9')]);
    const message =
      '{"role": "assistant", "content": null, "tool_calls": [{"function": {"name": "think", "arguments": {}}}]}';
    expect(extract(message)?.toolCalls).toEqual([call('think', '{}')]);
  });

  it('leaves JSON answers that only look like calls as content', () => {
    expect(extract('{"name": "search_web", "arguments": {"q": "x"}}')).toBeUndefined();
    expect(extract('{"name": "Alice", "age": 31}')).toBeUndefined();
    expect(
      extract('{"name": "calculator", "description": "Evaluates math.", "arguments": {}}'),
    ).toBeUndefined();
    expect(
      extract('[{"name": "calculator", "arguments": {}}, {"name": "Bob", "arguments": {}}]'),
    ).toBeUndefined();
    expect(extract('Here is the call: {"name": "calculator", "arguments": {}}')).toBeUndefined();
  });

  it('finds nothing in prose, and nothing when no tools are offered', () => {
    expect(extract('The answer is 4. I used the calculator tool.')).toBeUndefined();
    expect(extract('')).toBeUndefined();
    expect(extract('<tool_call>{"name": "calculator"}</tool_call>', [])).toBeUndefined();
  });
});

describe('extractTextToolCalls: ids and robustness', () => {
  it('makes `call_` + hex ids by default', () => {
    const result = extractTextToolCalls('{"name": "think", "arguments": {}}', OFFERED);
    expect(result?.toolCalls[0]?.id).toMatch(/^call_[0-9a-f]{24}$/);
  });

  it('answers megabyte inputs built to be slow', () => {
    const size = 1_000_000;
    const hostile = [
      '<tool_call>'.repeat(size / 11),
      '<tool_call>{"name": "calculator", "arguments": {"expression": "'.repeat(size / 60),
      `<tool_call>{"name": "calculator", "arguments": {"expression": "${'x'.repeat(size)}`,
      '[TOOL_CALLS]'.repeat(size / 12),
      '[TOOL_CALLS]calculator[ARGS]'.repeat(size / 28),
      '<|python_tag|>'.repeat(size / 14),
      'functools['.repeat(size / 10),
      '{'.repeat(size),
      '['.repeat(size),
      '{"a":'.repeat(size / 5),
      '"'.repeat(size),
      "'".repeat(size),
      '```'.repeat(size / 3),
      `[${'calculator(expression=1), '.repeat(size / 26)}`,
      'calculator'.repeat(size / 10),
      `${'a'.repeat(size)}(`,
      '1'.repeat(size),
      ' '.repeat(size),
    ];
    for (const text of hostile) expect(extract(text)).toBeUndefined();
    const big = `<tool_call>{"name": "think", "arguments": {"thought": "${'y'.repeat(size)}"}}</tool_call>`;
    expect(extract(big)?.toolCalls[0]?.arguments.length).toBe(size + 14);
  });

  it('never throws, and every call it returns is offered and has object arguments', () => {
    const samples = [
      '<tool_call>\n{"name": "calculator", "arguments": {"expression": "2+2"}}\n</tool_call>',
      '<|python_tag|>{"name": "calculator", "parameters": {"expression": "2+2"}}<|eom_id|>',
      '[TOOL_CALLS] [{"name": "calculator", "arguments": {"expression": "2+2"}, "id": "abc123def"}]',
      '[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}',
      "[get_weather(city='Oslo', days=3)]",
      '```json\n{"name": "think", "arguments": {"thought": "x"}}\n```',
      '{"function": {"name": "think", "arguments": "{\\"a\\": [1, {\\"b\\": null}]}"}}',
    ];
    const mutated = fc
      .tuple(
        fc.constantFrom(...samples),
        fc.array(
          fc.tuple(fc.nat(), fc.nat({ max: 8 }), fc.string({ unit: 'binary', maxLength: 6 })),
          { maxLength: 4 },
        ),
      )
      .map(([sample, edits]) =>
        edits.reduce((text, [at, remove, insert]) => {
          const index = at % (text.length + 1);
          return text.slice(0, index) + insert + text.slice(index + remove);
        }, sample),
      );
    const wellFormed = (text: string) => {
      const result = extractTextToolCalls(text, OFFERED);
      if (result === undefined) return;
      expect(typeof result.content).toBe('string');
      expect(result.toolCalls.length).toBeGreaterThan(0);
      for (const toolCall of result.toolCalls) {
        expect(OFFERED).toContain(toolCall.name);
        expect(isPlainObject(JSON.parse(toolCall.arguments))).toBe(true);
        expect(toolCall.id).not.toBe('');
      }
      expect(new Set(result.toolCalls.map((c) => c.id)).size).toBe(result.toolCalls.length);
    };
    fc.assert(fc.property(mutated, wellFormed), { numRuns: 3000 });
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 300 }), wellFormed), {
      numRuns: 2000,
    });
  });
});
