import { performance } from 'node:perf_hooks';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isPlainObject, type ToolCall } from '../../core/index.js';
import { createMarkerIndex } from './text-scan.js';
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

  it('reads a block of one JSON value whole, and one of several value by value, alike', () => {
    const one = '{"name": "calculator", "arguments": {"expression": "2+2"}}';
    expect(extract(`<tool_call>\n${one}\n</tool_call> after`)).toEqual({
      content: 'after',
      toolCalls: [call('calculator', TWO_PLUS_TWO)],
    });
    expect(extract(`<tool_call>\n${one}\n${one}\n</tool_call>`)?.toolCalls).toHaveLength(2);
    expect(extract(`<tool_call>[${one}, {"name": "nope"}]</tool_call>`)).toBeUndefined();
    expect(extract(`[TOOL_CALLS] [${one}]  `)?.toolCalls).toEqual([
      call('calculator', TWO_PLUS_TWO),
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

  it('writes pythonic arguments as JSON.stringify writes the values read (strings copied or decoded)', () => {
    const args = (text: string) => extract(text)?.toolCalls[0]?.arguments;
    const long = 'A "quoted" word, a C:\\path and a line\nbreak. '.repeat(4);
    expect(args(`[calculator(expression=${JSON.stringify(long)})]`)).toBe(
      JSON.stringify({ expression: long }),
    );
    expect(args('[calculator(expression="a\\/b \\u00e9 \\t")]')).toBe('{"expression":"a/b é \\t"}');
    expect(args("[calculator(expression='it\\'s \"fine\"')]")).toBe(
      '{"expression":"it\'s \\"fine\\""}',
    );
    expect(args('[calculator(expression="raw\nbreak")]')).toBe('{"expression":"raw\\nbreak"}');
    expect(args('[calculator(expression="\\ud800 lone")]')).toBe('{"expression":"\\ud800 lone"}');
    // A key given twice: the later value, in the first one's place (as an object keeps it).
    expect(args('[get_weather(city="Oslo", days=3, city="Bergen")]')).toBe(
      '{"city":"Bergen","days":3}',
    );
    expect(args('[get_weather(__proto__="x", days=None)]')).toBe('{"__proto__":"x","days":null}');
    const alphabet = ['a', ' ', '"', '\\', '\n', '\t', '\u0001', '\ud83d', '\ude00', 'é', '/'];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...alphabet), { maxLength: 120 }), (chars) => {
        const text = chars.join('');
        expect(args(`[calculator(expression=${JSON.stringify(text)}, n=1)]`)).toBe(
          JSON.stringify({ expression: text, n: 1 }),
        );
      }),
      { numRuns: 300, seed: 18 },
    );
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
    // In the middle of a sentence a call is an example (before issue 16 every call in prose was refused;
    // `Here is the call: {…}` now counts, see the prose tests below).
    expect(extract('Send {"name": "calculator", "arguments": {}} to the API.')).toBeUndefined();
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

describe('extractTextToolCalls: Mistral v11+ without the [ARGS] token', () => {
  it('reads `[TOOL_CALLS]name{…}`, alone, after prose and several in a row', () => {
    expect(extract('[TOOL_CALLS]get_weather{"city": "Kraków", "days": 2}')).toEqual({
      content: '',
      toolCalls: [call('get_weather', '{"city":"Kraków","days":2}')],
    });
    expect(extract('Sure thing.[TOOL_CALLS]calculator{"expression": "6*7"}')).toEqual({
      content: 'Sure thing.',
      toolCalls: [call('calculator', '{"expression":"6*7"}')],
    });
    const two =
      '[TOOL_CALLS]calculator{"expression": "1+1"}[TOOL_CALLS]think {"thought": "line one\\nline two"}</s>';
    expect(extract(two)?.toolCalls).toEqual([
      call('calculator', '{"expression":"1+1"}', 't1'),
      call('think', '{"thought":"line one\\nline two"}', 't2'),
    ]);
  });

  it('keeps nested objects and braces inside strings, and prose before the marker', () => {
    const text =
      'a{b[TOOL_CALLS]think{"thought": "use re.compile(r\'{}\') here", "meta": {"tags": ["x", {"y": null}]}}';
    expect(extract(text)).toEqual({
      content: 'a{b',
      toolCalls: [
        call(
          'think',
          '{"thought":"use re.compile(r\'{}\') here","meta":{"tags":["x",{"y":null}]}}',
        ),
      ],
    });
  });

  it('finds no call in a bare name, truncated arguments, an unknown name or plain text', () => {
    expect(extract('[TOOL_CALLS]think')).toBeUndefined();
    expect(extract('[TOOL_CALLS]think{"thought": "cut off here')).toBeUndefined();
    expect(extract('[TOOL_CALLS]rm_rf{"path": "/"}')).toBeUndefined();
    expect(extract('[TOOL_CALLS] this is not a call at all')).toBeUndefined();
  });

  it('keeps a [TOOL_CALLS] marker whose block does not parse visible next to a call that does', () => {
    const text = '[TOOL_CALLS]think[TOOL_CALLS]calculator{"expression": "2+2"}';
    expect(extract(text)).toEqual({
      content: '[TOOL_CALLS]think',
      toolCalls: [call('calculator', TWO_PLUS_TWO)],
    });
  });
});

describe('extractTextToolCalls: pythonic lists next to prose', () => {
  it('reads a list that ends the reply after prose, or starts it before prose', () => {
    expect(extract("I'll check that: [get_weather(city='Zürich', unit='celsius')]")).toEqual({
      content: "I'll check that:",
      toolCalls: [call('get_weather', '{"city":"Zürich","unit":"celsius"}')],
    });
    expect(extract("[get_weather(city='Lima')] Then I will summarise it.")).toEqual({
      content: 'Then I will summarise it.',
      toolCalls: [call('get_weather', '{"city":"Lima"}')],
    });
  });

  it('reads two lists at the edges of the reply, and a list on its own line', () => {
    const edges = "[get_weather(city='Oslo')] and then [calculator(expression='3*3')]";
    expect(extract(edges)).toEqual({
      content: 'and then',
      toolCalls: [
        call('get_weather', '{"city":"Oslo"}', 't1'),
        call('calculator', '{"expression":"3*3"}', 't2'),
      ],
    });
    const ownLine =
      "Let me look.\n[think(thought='multi\\nline', notes={'a': [1, 2], 'b': {'c': None}})]\nBack soon.";
    expect(extract(ownLine)).toEqual({
      content: 'Let me look.\nBack soon.',
      toolCalls: [call('think', '{"thought":"multi\\nline","notes":{"a":[1,2],"b":{"c":null}}}')],
    });
  });

  it('refuses a list inside a sentence, in a fence, in inline code, with an unknown name, or cut off', () => {
    const refused = [
      "You could run [get_weather(city='Rome')] to see it.",
      "The format is:\n```python\n[get_weather(city='Rome')]\n```\nThat is all.",
      "Write `[get_weather(city='Rome')]` to ask.",
      "Calling: [get_weather(city='Rome'), launch(missiles=True)]",
      "Calling: [get_weather(city='Rome'",
    ];
    for (const text of refused) expect(extract(text), text).toBeUndefined();
  });

  it('keeps the good entries of a list with a bad one', () => {
    expect(extract("[bad(x=b'z'), get_weather(city='SF')]")).toEqual({
      content: '',
      toolCalls: [call('get_weather', '{"city":"SF"}')],
    });
    expect(extract("Doing: [calculator(1+1), get_weather(city='SF')]")).toEqual({
      content: 'Doing:',
      toolCalls: [call('get_weather', '{"city":"SF"}')],
    });
    expect(extract("[get_weather(city=b'x'), calculator(expression=f(2))]")).toBeUndefined();
    expect(extract('[get_weather(city=1])]')).toBeUndefined();
  });
});

describe('extractTextToolCalls: Llama-style JSON next to prose', () => {
  it('reads a call between sentences and keeps the prose', () => {
    const text =
      'Here is the result: {"name": "think", "parameters": {}} Would you like to know more?';
    expect(extract(text)).toEqual({
      content: 'Here is the result: Would you like to know more?',
      toolCalls: [call('think', '{}')],
    });
  });

  it('reads `;`-separated calls in prose, a call on its own line, and a list', () => {
    const text =
      'Running both.\n{"name": "calculator", "parameters": {"expression": "2+2"}}; {"name": "get_weather", "arguments": {"city": "東京"}}\nDone soon.';
    expect(extract(text)).toEqual({
      content: 'Running both.\nDone soon.',
      toolCalls: [
        call('calculator', TWO_PLUS_TWO, 't1'),
        call('get_weather', '{"city":"東京"}', 't2'),
      ],
    });
    const list = 'Okay. [{"name": "think", "arguments": {"thought": "a {b} [c]"}}]';
    expect(extract(list)?.toolCalls).toEqual([call('think', '{"thought":"a {b} [c]"}')]);
  });

  it('finds a valid call after invalid JSON, and keeps later braces in the prose', () => {
    const invalid =
      '{"name": "think", "parameters": {{"name": "think", "parameters": {"thought": "x"}}';
    expect(extract(invalid)?.toolCalls).toEqual([call('think', '{"thought":"x"}')]);
    const trailing =
      '{"name": "calculator", "parameters": {"expression": "2+2"}} I passed {expression} and {"expression": "2+2"}';
    expect(extract(trailing)).toEqual({
      content: 'I passed {expression} and {"expression": "2+2"}',
      toolCalls: [call('calculator', TWO_PLUS_TWO)],
    });
  });

  it('refuses JSON in a sentence, in fences or inline code, without arguments, in data, or unknown', () => {
    const refused = [
      'You can call {"name": "think", "arguments": {}} whenever you like.',
      'Example:\n```json\n{"name": "think", "arguments": {}}\n```\nThat is the format.',
      'Use `{"name": "think", "arguments": {}}` for it.',
      'Here: {"name": "think"}',
      'Result: {"data": {"name": "think", "arguments": {}}}',
      'Result: {"name": "think", "arguments": {}, "note": "x"}',
      'Here: {"name": "delete_all", "arguments": {}}',
      'Here: {"name": "think", "arguments": {"thought": "unterminated}',
    ];
    for (const text of refused) expect(extract(text), text).toBeUndefined();
  });

  it('counts `{"name": "x"}` as a call only when it is the whole reply (a tool without parameters)', () => {
    expect(extract('{"name": "think"}')?.toolCalls).toEqual([call('think', '{}')]);
    expect(extract('{"name": "think"}', ['calculator'])).toBeUndefined();
  });
});

describe('extractTextToolCalls: never throws, linear time', () => {
  const MARKERS = [
    '<tool_call>',
    '</tool_call>',
    '[TOOL_CALLS]',
    '[ARGS]',
    '[CALL_ID]',
    '<|python_tag|>',
    '<|tool_call|>',
    'functools',
    '<|eot_id|>',
    '```',
    '`',
    '{',
    '}',
    '[',
    ']',
    '(',
    ')',
    '"',
    "'",
    ':',
    ';',
    ',',
    '\n',
    '\\',
    'calculator',
    'get_weather(',
    '{"name": "think", "arguments": {',
  ];
  const VALID = [
    'Here: {"name": "calculator", "parameters": {"expression": "2+2"}} Bye.',
    "Sure: [get_weather(city='Oslo'), think(thought='x')]",
    '[TOOL_CALLS]get_weather{"city": "Paris"}',
    '<tool_call>{"name": "think", "arguments": {}}</tool_call>',
  ];

  it('never throws on random strings or marker splices into valid replies', () => {
    const splices = fc
      .tuple(
        fc.constantFrom(...VALID),
        fc.array(fc.tuple(fc.nat(), fc.constantFrom(...MARKERS)), { maxLength: 6 }),
      )
      .map(([reply, edits]) =>
        edits.reduce((text, [at, marker]) => {
          const index = at % (text.length + 1);
          return text.slice(0, index) + marker + text.slice(index);
        }, reply),
      );
    const anything = fc.oneof(splices, fc.string({ unit: 'binary', maxLength: 200 }));
    fc.assert(
      fc.property(anything, (text) => {
        const result = extractTextToolCalls(text, OFFERED);
        for (const toolCall of result?.toolCalls ?? []) {
          expect(isPlainObject(JSON.parse(toolCall.arguments))).toBe(true);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('answers 200 KB of adversarial text within a loose bound', () => {
    const size = 200_000;
    const build = fc.array(fc.constantFrom(...MARKERS), { minLength: 1, maxLength: 8 });
    const patterns = [
      ...fc.sample(build, { numRuns: 12, seed: 16 }).map((parts) => parts.join('')),
      '{"name": "think", "parameters": {',
      '{"a": "',
      "[get_weather(city='",
      '[think(a=1), ',
      'x {"name": "think", "arguments": {}} y ',
      "Then [think(thought='x')] later ",
      '[TOOL_CALLS]think',
      '{"k": [1, {"k": [1, ',
      // Strict-JSON fast path: many starts whose scan runs off the end, or closes only far away.
      `x {"${'a'.repeat(100)}\n`,
      'Here: {"name": "think", "arguments": {"t": "}} ',
      "{'a': '}', ",
    ];
    for (const pattern of patterns) {
      const text = pattern.repeat(Math.ceil(size / pattern.length));
      const started = performance.now();
      extractTextToolCalls(text, OFFERED);
      // About 20 ms on a quiet machine; ×10 for a loaded one.
      expect(performance.now() - started, pattern).toBeLessThan(2000);
    }
  });
});

describe('createMarkerIndex (which markers a reply holds, found once)', () => {
  const MARKED = [
    '<tool_call>',
    '<tool_calls>',
    '<|tool_call|>',
    '<a',
    'to=functions.',
    '[TOOL_CALLS]',
  ];
  const index = createMarkerIndex(MARKED);

  it('answers as includes does, for listed markers and others', () => {
    const parts = [...MARKED, '<', '<tool', 'to=', 'functions.', 'x', ' ', '<|', 'to=functions'];
    const texts = fc.array(fc.constantFrom(...parts), { maxLength: 12 }).map((p) => p.join(''));
    fc.assert(
      fc.property(texts, fc.constantFrom(...MARKED, 'functools', '<b', 'x'), (text, marker) => {
        expect(index(text)(marker)).toBe(text.includes(marker));
      }),
      { numRuns: 2000 },
    );
  });

  it('finds markers that overlap or share a start', () => {
    const holds = index('<tool_calls>to=to=functions.');
    expect(holds('<tool_calls>')).toBe(true);
    expect(holds('<tool_call>')).toBe(false);
    expect(holds('to=functions.')).toBe(true);
    expect(index('<<a')('<a')).toBe(true);
  });
});
