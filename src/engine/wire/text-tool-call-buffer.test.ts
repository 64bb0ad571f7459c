import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import type { StreamChunk } from '../../core/index.js';
import { withTextToolCalls } from './engine-results.js';
import type { OfferedToolSet } from './formats/tool-call-format.js';
import { findTextToolCalls, TextToolCallBuffer } from './text-tool-call-buffer.js';

const makeId = (index: number) => `id_${index}`;

/** The offered tools of these names (no schemas). */
function toolSet(...names: string[]): OfferedToolSet {
  return { names: new Set(names), parametersOf: () => undefined };
}
const CALL_TEXT =
  '<tool_call>{"name": "calculator", "arguments": {"expression": "2+2"}}</tool_call>';
const USAGE = { promptTokens: 3, completionTokens: 2, totalTokens: 5 };
const END = { finishReason: 'stop', usage: USAGE, model: 'm' } as const;

function text(value: string): StreamChunk {
  return { type: 'text_delta', text: value };
}

function endOf(finishReason: string): StreamChunk {
  return { type: 'end', finishReason, usage: USAGE, model: 'm', ttftSeconds: 0 };
}

describe('findTextToolCalls', () => {
  it('finds calls of the named tools, ids from the factory numbered from 0 on every call', () => {
    const twice = `${CALL_TEXT}\n${CALL_TEXT}`;
    for (let round = 0; round < 2; round += 1) {
      expect(
        findTextToolCalls(twice, toolSet('calculator'), undefined, makeId)?.toolCalls.map(
          (c) => c.id,
        ),
      ).toEqual(['id_0', 'id_1']);
    }
    expect(findTextToolCalls(CALL_TEXT, toolSet('get_weather'), undefined, makeId)).toBeUndefined();
    expect(findTextToolCalls(CALL_TEXT, toolSet(), undefined, makeId)).toBeUndefined();
  });
});

describe('TextToolCallBuffer', () => {
  it('passes every chunk straight on when no tool is named', () => {
    const buffer = new TextToolCallBuffer(toolSet(), 'm', makeId);
    const reasoning: StreamChunk = { type: 'reasoning_delta', text: 'hm' };
    expect([...buffer.pass([reasoning, text(CALL_TEXT)])]).toEqual([reasoning, text(CALL_TEXT)]);
    expect([...buffer.end([text('!')], END)]).toEqual([text('!'), endOf('stop')]);
  });

  it('streams the text up to where a call starts, holds the rest, and turns the call into a tool call', () => {
    const buffer = new TextToolCallBuffer(toolSet('calculator'), 'm', makeId);
    const reasoning: StreamChunk = { type: 'reasoning_delta', text: 'hm' };
    const half = CALL_TEXT.length / 2;
    expect([
      ...buffer.pass([text('Let me add. '), reasoning, text(CALL_TEXT.slice(0, half))]),
    ]).toEqual([text('Let me add.'), reasoning]);
    expect([...buffer.pass([text(CALL_TEXT.slice(half))])]).toEqual([]);
    expect([...buffer.end([reasoning], END)]).toEqual([
      reasoning,
      {
        type: 'tool_call',
        toolCall: { id: 'id_0', name: 'calculator', arguments: '{"expression":"2+2"}' },
      },
      endOf('tool_calls'),
    ]);
  });

  it('passes a reply with no call on as it arrives, holding only what could begin a marker', () => {
    const buffer = new TextToolCallBuffer(toolSet('calculator'), 'm', makeId);
    expect([...buffer.pass([text('Four'), text('.')])]).toEqual([text('Four'), text('.')]);
    // `<tool` may begin `<tool_call>`: held until the next chunk shows it does not (the space before it too).
    expect([...buffer.pass([text(' See <tool')])]).toEqual([text(' See')]);
    expect([...buffer.pass([text('kit> too.')])]).toEqual([text(' <toolkit> too.')]);
    expect([...buffer.end([], { ...END, finishReason: 'length' })]).toEqual([endOf('length')]);
  });

  it('passes on a JSON example once it closes and is no call, and goes on streaming after it', () => {
    const buffer = new TextToolCallBuffer(toolSet('calculator'), 'm', makeId);
    expect([...buffer.pass([text('In JSON: {"a": '), text('"}"}')])]).toEqual([
      text('In JSON:'),
      text(' {"a": "}"}'),
    ]);
    expect([...buffer.pass([text(' is an object.')])]).toEqual([text(' is an object.')]);
    expect([...buffer.end([], END)]).toEqual([endOf('stop')]);
  });

  it('passes on markdown links, lists, fences and the word commentary that hold no call', () => {
    const buffer = new TextToolCallBuffer(toolSet('calculator'), 'm', makeId);
    const reply =
      'See [the notes](https://x.y/z) and [1], in his commentary too.\n```ts\nconst a = {b: 1};\n```\nDone.';
    const early = [...buffer.pass(chunksAt(reply, 7))].map((c) =>
      c.type === 'text_delta' ? c.text : '',
    );
    expect(early.join('')).toBe(
      'See [the notes](https://x.y/z) and [1], in his commentary too.\n```ts\nconst a = {b: 1};\n```\nDone.',
    );
    expect([...buffer.end([], END)]).toEqual([endOf('stop')]);
  });

  it('holds a JSON call standing in prose from its brace and never passes its text on', () => {
    const buffer = new TextToolCallBuffer(toolSet('calculator'), 'm', makeId);
    const call = '{"name": "calculator", "arguments": {"expression": "2+2"}}';
    const streamed = [...buffer.pass(chunksAt(`Adding now: ${call}`, 5))];
    expect(streamed.map((c) => (c.type === 'text_delta' ? c.text : '')).join('')).toBe(
      'Adding now:',
    );
    const ended = [...buffer.end([], END)];
    expect(ended.map((c) => c.type)).toEqual(['tool_call', 'end']);
  });

  it("holds a family's marker split across chunks and reads the call at the end", () => {
    const buffer = new TextToolCallBuffer(toolSet('calculator'), 'qwen3-coder', makeId);
    const xml =
      '<tool_call>\n<function=calculator>\n<parameter=expression>\n2+2\n</parameter>\n</function>\n</tool_call>';
    const streamed = [...buffer.pass([text('Sure.\n<tool_'), text(xml.slice(6))])];
    expect(streamed).toEqual([text('Sure.')]);
    expect([...buffer.end([], END)]).toEqual([
      {
        type: 'tool_call',
        toolCall: { id: 'id_0', name: 'calculator', arguments: '{"expression":"2+2"}' },
      },
      endOf('tool_calls'),
    ]);
  });

  it('leaves the text alone when the answer has structured calls', () => {
    const buffer = new TextToolCallBuffer(toolSet('calculator'), 'm', makeId);
    const call: StreamChunk = {
      type: 'tool_call',
      toolCall: { id: 'call_1', name: 'calculator', arguments: '{}' },
    };
    expect([...buffer.pass([text(CALL_TEXT)])]).toEqual([]);
    expect([...buffer.end([call], { ...END, finishReason: 'tool_calls' })]).toEqual([
      text(CALL_TEXT),
      call,
      endOf('tool_calls'),
    ]);
  });

  it('never passes on markup a reader cuts out around calls before the reply is read', () => {
    const cases: readonly (readonly [string, string])[] = [
      ['command-r7b', '<|START_RESPONSE|>Checking.<|END_RESPONSE|>'],
      ['functionary-small-v3.2', 'all\nChecking.>>>all\nMore.'],
      ['gigachat-3', 'Checking.<|message_sep|>More.'],
      [
        'gpt-oss-20b',
        '<|channel|>analysis<|message|>Think.<|end|><|start|>assistant<|channel|>final<|message|>Hi.',
      ],
      ['gpt-oss-20b', 'analysisThink.assistantfinalHi.'],
    ];
    for (const [model, reply] of cases) {
      const buffer = new TextToolCallBuffer(toolSet('calculator'), model, makeId);
      const early = streamedText([...buffer.pass(chunksAt(reply, 3))]);
      expect(early, `${model}: ${reply}`).not.toMatch(/<\||all\n|analysis/);
    }
  });
});

describe('TextToolCallBuffer: the visible text of replies in a family markup', () => {
  const answer = 'The weather in Paris is sunny and warm today, with a light breeze.';

  it('streams the text after the markup as it comes, the reasoning first and apart, the markup never', () => {
    const cases: readonly (readonly [string, string, string])[] = [
      [
        'gpt-oss-20b',
        `<|channel|>analysis<|message|>Think.<|end|><|start|>assistant<|channel|>final<|message|>${answer}<|return|>`,
        'Think.',
      ],
      ['gpt-oss-20b', `analysisThink.assistantfinal ${answer}`, 'Think.'],
      ['functionary-small-v3.2', `all\n${answer}`, ''],
      [
        'command-r7b',
        `<|START_THINKING|>Plan.<|END_THINKING|><|START_RESPONSE|>${answer}<|END_RESPONSE|>`,
        'Plan.',
      ],
      ['gigachat-3', `${answer}<|message_sep|>`, ''],
    ];
    for (const [model, reply, reasoning] of cases) {
      const buffer = new TextToolCallBuffer(toolSet('get_weather'), model, makeId);
      const passed = [...buffer.pass(chunksAt(reply, 3))];
      const ended = [...buffer.end([], END)];
      expect(streamedText(passed), model).toBe(answer);
      expect(streamedText(ended), model).toBe('');
      const all = [...passed, ...ended];
      expect(streamedReasoning(all), model).toBe(reasoning);
      const firstText = all.findIndex((chunk) => chunk.type === 'text_delta');
      const firstReasoning = all.findIndex((chunk) => chunk.type === 'reasoning_delta');
      if (reasoning !== '') expect(firstReasoning).toBeLessThan(firstText);
      expect(ended.at(-1)).toMatchObject({ type: 'end', finishReason: 'stop' });
    }
  });

  it('holds a reply whose markup before the visible text holds a call, and reads the call at the end', () => {
    const replies = [
      'get_weather\n{"city": "Paris"}>>>all\nDone.',
      '<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "Paris"}<|call|><|start|>assistant<|channel|>final<|message|>Done.',
    ];
    for (const reply of replies) {
      const model = reply.startsWith('<') ? 'gpt-oss-20b' : 'functionary-small-v3.2';
      const buffer = new TextToolCallBuffer(toolSet('get_weather'), model, makeId);
      expect(streamedText([...buffer.pass(chunksAt(reply, 2))])).toBe('');
      const ended = [...buffer.end([], END)];
      expect(streamedText(ended)).toBe('Done.');
      expect(ended.filter((chunk) => chunk.type === 'tool_call')).toHaveLength(1);
    }
  });

  it('reads only a few openers of a long held reply (linear time)', () => {
    const reply = `get_weather\n{"x": 1}${'>>>all\nmore '.repeat(100_000)}`;
    const started = performance.now();
    const buffer = new TextToolCallBuffer(toolSet('get_weather'), 'functionary-small-v3.2', makeId);
    expect(streamedText([...buffer.pass(chunksAt(reply, 20))])).toBe('');
    expect(performance.now() - started).toBeLessThan(2000);
  });
});

// ---------------------------------------------------------------------------------------------------------
// The property: streamed text + calls == what the non-streaming path gives, for every reply of the test corpora

/** The offered tools the corpora's replies call. */
const CORPUS_TOOLS = toolSet(
  'get_weather',
  'search_web',
  'send_email',
  'calculator',
  'web_search',
  'think',
  'search',
  'python',
  'lookup_order',
  'get_candidate_status',
  'fs.read_file',
  'brave_search',
  'write_file',
  'f',
);

const WEATHER_CALL = '{"name": "get_weather", "arguments": {"city": "Paris"}}';

/** Replies mixing prose that looks like a call start with real calls. */
const EXTRA_REPLIES: readonly string[] = [
  `See [the notes](https://x.y) first.\n\n<tool_call>${WEATHER_CALL}</tool_call>`,
  `An object like {"a": {"b": "}"}} is data. Now: ${WEATHER_CALL}`,
  `  \n Leading space, then a call.\n${WEATHER_CALL}\n`,
  `In his commentary he said so.\n\n<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "Paris"}<|call|>`,
  '<|channel|>analysis<|message|>Think.<|end|><|start|>assistant<|channel|>final<|message|>Hi there.<|return|>',
  'analysisThink first.assistantcommentary to=functions.get_weather json{"city": "Paris"}',
  'The final answer uses functools and [x] and [1, 2].',
  `\`\`\`json\n${WEATHER_CALL}\n\`\`\``,
  `Example:\n\`\`\`json\n${WEATHER_CALL}\n\`\`\`\nThat is the shape.`,
  'get_weather(city="Paris")',
  '[get_weather(city="Paris"), calculator(expression="1+1")]',
  `[${WEATHER_CALL}]`,
  'all\nLet me check.>>>get_weather\n{"city": "Paris"}',
  '<|START_RESPONSE|>Checking.<|END_RESPONSE|><|START_ACTION|>[{"tool_call_id": "0", "tool_name": "get_weather", "parameters": {"city": "Paris"}}]<|END_ACTION|>',
  `Text with a brace { that never closes and then ${WEATHER_CALL}`,
  `Use 'quotes' {it's} then <tool_call>${WEATHER_CALL}</tool_call> and after.`,
];

const HARMONY_CALL =
  '<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "Paris"}<|call|>';
const COMMAND_R_CALL =
  '<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "get_weather", "parameters": {"city": "Paris"}}]<|END_ACTION|>';

/** Replies in a family's markup that show the user only part of their text, with and without calls. */
const VISIBLE_REPLIES: readonly string[] = [
  '<|channel|>analysis<|message|>The user says hi.<|end|><|start|>assistant<|channel|>final<|message|>Hello! How can I help?<|return|>',
  '<|channel|>analysis<|message|>Think.<|end|><|start|>assistant<|channel|>final<|message|>\n  Spaced answer with {"a": 1} and [x](y).<|end|>',
  '<|channel|>final<|message|>Only final.',
  '<|channel|>analysis<|message|>Cut off while thinking',
  `<|channel|>analysis<|message|>Need weather.<|end|>${HARMONY_CALL}`,
  `<|channel|>analysis<|message|>Need weather.<|end|><|start|>assistant<|channel|>final<|message|>Checking.<|end|>${HARMONY_CALL}`,
  '<|channel|>analysis<|message|>Think.<|end|><|start|>assistant<|channel|>final<|message|>Text with final<|message|> inside.',
  'analysisThe user says hi.assistantfinalHello! How can I help?',
  'analysisNeed weather.assistantcommentary to=functions.get_weather json{"city": "Paris"}',
  'analysisThink.assistantfinalChecking.assistantcommentary to=functions.get_weather json{"city": "Paris"}',
  'assistantfinal Just the answer.',
  'all\nThe weather is fine today.',
  '>>>all\nFirst part.>>>all\nSecond part.',
  'all\nLet me check.>>>get_weather\n{"city": "Paris"}',
  'get_weather\n{"city": "Paris"}>>>all\nDone.',
  'all\n',
  '<|START_THINKING|>Plan it.<|END_THINKING|><|START_RESPONSE|>Hello there!<|END_RESPONSE|><|END_OF_TURN_TOKEN|>',
  `<|START_THINKING|>Need weather.<|END_THINKING|>${COMMAND_R_CALL}`,
  `<|START_RESPONSE|>Checking.<|END_RESPONSE|>${COMMAND_R_CALL}`,
  '<|START_THINKING|>Unclosed plan<|START_RESPONSE|>Answer.',
  '<|START_RESPONSE|>  Answer in a response.',
  'Hello there.<|message_sep|>\n',
  'One.<|message_sep|> Two.',
  `Checking.<|message_sep|>function call<|role_sep|>\n${WEATHER_CALL}`,
];

/** The models whose formats read `VISIBLE_REPLIES`. */
const VISIBLE_MODELS = [
  undefined,
  'gpt-oss-20b',
  'functionary-small-v3.2',
  'command-r7b',
  'gigachat-3',
] as const;

/** Every string literal of the readers' test files (replies, and prose: test names), with the models to try. */
function corpus(): { readonly reply: string; readonly models: readonly (string | undefined)[] }[] {
  const dir = new URL('./', import.meta.url);
  const files: readonly (readonly [string, readonly (string | undefined)[]])[] = [
    ['text-tool-calls.test.ts', [undefined]],
    ['text-tool-call-buffer.test.ts', [undefined, 'qwen3-coder']],
    ['formats/read-text-tool-calls.test.ts', [undefined]],
    ['formats/functionary.test.ts', ['functionary-small-v3.2', 'functionary-v3.1']],
    ['formats/hermes-variants.test.ts', ['hermes-3', 'qwen2.5-coder']],
    ['formats/json-list-markers.test.ts', [undefined, 'xlam-7b', 'gigachat-3']],
    ...[
      'command-r',
      'deepseek',
      'glm',
      'gpt-oss',
      'kimi-k2',
      'lfm2',
      'llama4',
      'minimax',
      'qwen3-coder',
      'seed-oss',
      'xml-parameters',
    ].map((name) => [`formats/${name}.test.ts`, [undefined]] as const),
  ];
  const seen = new Set<string>();
  const out: { reply: string; models: readonly (string | undefined)[] }[] = [
    ...EXTRA_REPLIES.map((reply) => ({
      reply,
      models: [undefined, 'gpt-oss-20b', 'functionary-small-v3.2'],
    })),
    ...VISIBLE_REPLIES.map((reply) => ({ reply, models: VISIBLE_MODELS })),
  ];
  for (const [file, models] of files) {
    for (const reply of stringLiterals(readFileSync(new URL(file, dir), 'utf8'))) {
      if (reply.length < 6 || seen.has(reply)) continue;
      seen.add(reply);
      out.push({ reply, models });
    }
  }
  return out;
}

function stringLiterals(source: string): string[] {
  const file = ts.createSourceFile('x.ts', source, ts.ScriptTarget.Latest, false);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) found.push(node.text);
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/** A seeded generator of numbers in [0, 1). */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `reply` cut at random points into chunks of 1 to `max` characters. */
function randomChunks(reply: string, random: () => number, max: number): StreamChunk[] {
  const chunks: StreamChunk[] = [];
  for (let at = 0; at < reply.length; ) {
    const size = 1 + Math.floor(random() * max);
    chunks.push(text(reply.slice(at, at + size)));
    at += size;
  }
  return chunks;
}

/** `reply` in chunks of `size` characters. */
function chunksAt(reply: string, size: number): StreamChunk[] {
  const chunks: StreamChunk[] = [];
  for (let at = 0; at < reply.length; at += size) chunks.push(text(reply.slice(at, at + size)));
  return chunks;
}

function streamedText(chunks: readonly StreamChunk[]): string {
  return chunks.map((chunk) => (chunk.type === 'text_delta' ? chunk.text : '')).join('');
}

/** The reasoning text of `chunks`. */
function streamedReasoning(chunks: readonly StreamChunk[]): string {
  return chunks.map((chunk) => (chunk.type === 'reasoning_delta' ? chunk.text : '')).join('');
}

/** What the stream gave: its text (early: before `end`) and calls. */
function stream(model: string | undefined, chunks: readonly StreamChunk[]) {
  const buffer = new TextToolCallBuffer(CORPUS_TOOLS, model, makeId);
  const passed = [...buffer.pass(chunks)];
  const early = streamedText(passed);
  const ended = [...buffer.end([], { ...END, model: model ?? 'm' })];
  const calls = ended.flatMap((chunk) => (chunk.type === 'tool_call' ? [chunk.toolCall] : []));
  const finish = ended.at(-1);
  return {
    early,
    reasoning: streamedReasoning([...passed, ...ended]),
    content: early + streamedText(ended),
    calls,
    finishReason: finish?.type === 'end' ? finish.finishReason : undefined,
  };
}

function nonStreamed(reply: string, model: string | undefined) {
  return withTextToolCalls(
    {
      content: reply,
      reasoning: '',
      toolCalls: [],
      finishReason: 'stop',
      usage: USAGE,
      model: model ?? 'm',
    },
    CORPUS_TOOLS,
    makeId,
  );
}

describe('TextToolCallBuffer against the non-streaming read', () => {
  const replies = corpus();

  it('gives the same text and calls as the whole reply read at once, however the reply is split', () => {
    expect(replies.length).toBeGreaterThan(300);
    const mismatches: string[] = [];
    let withCalls = 0;
    for (const [index, { reply, models }] of replies.entries()) {
      for (const model of models) {
        const expected = nonStreamed(reply, model);
        if (expected.toolCalls.length > 0) withCalls += 1;
        const random = seeded(index * 31 + (model?.length ?? 0));
        // Chunks of 1-4 characters (splits inside every marker) or 1-40, by turns.
        const chunks = randomChunks(reply, random, index % 2 === 0 ? 4 : 40);
        const got = stream(model, chunks);
        // Readers trim the reply around calls; leading space passed on before a call stays.
        const content = expected.toolCalls.length > 0 ? got.content.trimStart() : got.content;
        // Reasoning a reply's markup sets apart comes with the text; a reply with a call carries none.
        const reasoning = expected.toolCalls.length > 0 ? '' : expected.reasoning;
        if (
          content !== expected.content ||
          (expected.toolCalls.length === 0 && got.reasoning !== reasoning) ||
          JSON.stringify(got.calls) !== JSON.stringify(expected.toolCalls) ||
          got.finishReason !== expected.finishReason
        )
          mismatches.push(`${model}: ${JSON.stringify(reply)} -> ${JSON.stringify(got)}`);
      }
    }
    expect(withCalls).toBeGreaterThan(150);
    expect(mismatches).toEqual([]);
  });
});

describe('TextToolCallBuffer cost', () => {
  it('stays linear: 1 MB replies fed in 20-character chunks', () => {
    const words = 'The quick brown fox jumps over the lazy dog, and then some more prose. ';
    const prose = words.repeat(Math.ceil((1 << 20) / words.length));
    const json = `Data: {"items": [${'"abcdefghij", '.repeat(70_000)}"z"]} ok`;
    const fence = `Code:\n\`\`\`\n${prose}\n\`\`\`\nDone.`;
    const call = `<tool_call>{"name": "calculator", "arguments": {"expression": "${'1+'.repeat(500_000)}1"}}</tool_call>`;
    const spaces = `In his commentary${' '.repeat(1 << 20)}.`;
    for (const reply of [prose, json, fence, call, spaces]) {
      const started = performance.now();
      const buffer = new TextToolCallBuffer(toolSet('calculator'), undefined, makeId);
      let passed = 0;
      for (const chunk of chunksAt(reply, 20)) {
        for (const out of buffer.pass([chunk]))
          if (out.type === 'text_delta') passed += out.text.length;
      }
      const ended = [...buffer.end([], END)];
      expect(performance.now() - started).toBeLessThan(2000);
      expect(passed + streamedText(ended).length).toBeGreaterThan(
        reply === call || reply === spaces ? -1 : reply.length - 1,
      );
    }
  });
});
