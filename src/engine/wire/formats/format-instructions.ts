import {
  isPlainObject,
  type JsonSchema,
  type Message,
  type OpenAIFunctionTool,
  type ToolCall,
} from '../../../core/index.js';
import type { ToolCallFormat } from './tool-call-format.js';
import { propertySchema, typedParameter } from './xml-parameters.js';

// The text-protocol fallback for servers that take no `tools`: the system prompt teaches the model its own
// family's call syntax, and the history is written back in that syntax. Every writer here emits exactly what
// the family's reader in this folder parses (format-instructions.test.ts checks each round trip).

/** A call as a writer takes it: the tool's name and its arguments as an object. */
export interface CallToWrite {
  readonly name: string;
  readonly arguments: Readonly<Record<string, unknown>>;
}

/** The example call the instructions show, and its text exactly as written in them. */
export interface ToolCallExample {
  readonly call: CallToWrite;
  readonly text: string;
}

type SchemaOf = (name: string) => JsonSchema | undefined;

/** How one family writes calls, and how its template shows a tool's result. */
interface FormatWriter {
  /** The calls of one reply, in the family's syntax. */
  readonly calls: (calls: readonly CallToWrite[], schemaOf: SchemaOf) => string;
  /** A line on the syntax's details (value encoding), or empty. */
  readonly note: string;
  /** A tool's result as its template shows it (`name` is the called tool, `index` its place in the reply). */
  readonly result: (content: string, name: string, index: number) => string;
  /** An assistant message's text and its calls as one reply (default: the text, a line break, the calls). */
  readonly reply?: (content: string, callsText: string) => string;
  /** Where words may go around the calls (default: before them, none after). */
  readonly placement?: string;
}

// ---------------------------------------------------------------------------------------------------------
// Writing values

const json = (value: unknown): string => JSON.stringify(value);

/** `{"name": …, "arguments": {…}}` (or another arguments key) as compact JSON. */
function callObject(call: CallToWrite, argumentsKey = 'arguments'): string {
  return json({ name: call.name, [argumentsKey]: call.arguments });
}

/**
 * A parameter value as raw XML text the readers type back to the same value with the parameter's schema
 * (`typedParameter`): strings as plain text, other values as JSON, wrapped in line breaks when `wrap` is set
 * (Qwen3-Coder's layout) or when a value's own edge line breaks would otherwise be trimmed; a string the schema
 * would read as something else (`"3"` where a number is allowed) is written as a JSON string when that reads back.
 */
function xmlValue(value: unknown, schema: JsonSchema | undefined, wrap: boolean): string {
  const plain = typeof value === 'string' ? value : json(value);
  const candidates = [plain, json(value)].flatMap((text) =>
    wrap ? [`\n${text}\n`, text] : [text, `\n${text}\n`],
  );
  const fits = candidates.find((raw) => sameValue(typedParameter(raw, schema), value));
  return fits ?? candidates[0] ?? plain;
}

function sameValue(left: unknown, right: unknown): boolean {
  return json(left) === json(right);
}

function entriesOf(call: CallToWrite): [string, unknown][] {
  return Object.entries(call.arguments);
}

// ---------------------------------------------------------------------------------------------------------
// The writers, one per family

const toolResponse = (content: string): string => `<tool_response>\n${content}\n</tool_response>`;

const JSON_NOTE = 'The arguments are one JSON object.';
const XML_NOTE =
  'Write strings as plain text and other values (numbers, booleans, lists, objects) as JSON.';

/** Hermes / Qwen2.5: `<tool_call>{"name": …, "arguments": {…}}</tool_call>`, the default. */
const HERMES: FormatWriter = {
  calls: (calls) =>
    calls.map((call) => `<tool_call>\n${callObject(call)}\n</tool_call>`).join('\n'),
  note: JSON_NOTE,
  result: toolResponse,
};

function functionTagWriter(open: string, close: string): FormatWriter {
  return {
    calls: (calls, schemaOf) =>
      calls
        .map((call) => {
          const schema = schemaOf(call.name);
          const parameters = entriesOf(call).map(
            ([key, value]) =>
              `<parameter=${key}>${xmlValue(value, propertySchema(schema, key), true)}</parameter>\n`,
          );
          return `${open}\n<function=${call.name}>\n${parameters.join('')}</function>\n${close}`;
        })
        .join('\n'),
    note: XML_NOTE,
    result: toolResponse,
  };
}

const GLM: FormatWriter = {
  calls: (calls, schemaOf) =>
    calls
      .map((call) => {
        const schema = schemaOf(call.name);
        const pairs = entriesOf(call).map(
          ([key, value]) =>
            `<arg_key>${key}</arg_key>\n<arg_value>${xmlValue(value, propertySchema(schema, key), false)}</arg_value>\n`,
        );
        return `<tool_call>${call.name}\n${pairs.join('')}</tool_call>`;
      })
      .join('\n'),
  note: XML_NOTE,
  result: toolResponse,
};

const MINIMAX: FormatWriter = {
  calls: (calls, schemaOf) => {
    const invokes = calls.map((call) => {
      const schema = schemaOf(call.name);
      const parameters = entriesOf(call).map(
        ([key, value]) =>
          `<parameter name="${key}">${xmlValue(value, propertySchema(schema, key), false)}</parameter>\n`,
      );
      return `<invoke name="${call.name}">\n${parameters.join('')}</invoke>\n`;
    });
    return `<minimax:tool_call>\n${invokes.join('')}</minimax:tool_call>`;
  },
  note: XML_NOTE,
  result: (content) => `<response>${content}</response>`,
};

const DEEPSEEK_OUTPUT = (content: string): string =>
  `<｜tool▁output▁begin｜>${content}<｜tool▁output▁end｜>`;

const DEEPSEEK_V3: FormatWriter = {
  calls: (calls) => {
    const entries = calls.map(
      (call) =>
        `<｜tool▁call▁begin｜>function<｜tool▁sep｜>${call.name}\n\`\`\`json\n${json(call.arguments)}\n\`\`\`<｜tool▁call▁end｜>`,
    );
    return `<｜tool▁calls▁begin｜>${entries.join('\n')}<｜tool▁calls▁end｜>`;
  },
  note: JSON_NOTE,
  result: DEEPSEEK_OUTPUT,
};

const DEEPSEEK_V31: FormatWriter = {
  calls: (calls) => {
    const entries = calls.map(
      (call) =>
        `<｜tool▁call▁begin｜>${call.name}<｜tool▁sep｜>${json(call.arguments)}<｜tool▁call▁end｜>`,
    );
    return `<｜tool▁calls▁begin｜>${entries.join('')}<｜tool▁calls▁end｜>`;
  },
  note: JSON_NOTE,
  result: DEEPSEEK_OUTPUT,
};

const DEEPSEEK_V32: FormatWriter = {
  calls: (calls) => {
    const invokes = calls.map((call) => {
      const parameters = entriesOf(call).map(([key, value]) => {
        const isString = typeof value === 'string';
        const raw = isString ? value : json(value);
        return `<｜DSML｜parameter name="${key}" string="${isString}">${raw}</｜DSML｜parameter>\n`;
      });
      return `<｜DSML｜invoke name="${call.name}">\n${parameters.join('')}</｜DSML｜invoke>\n`;
    });
    return `<｜DSML｜function_calls>\n${invokes.join('')}</｜DSML｜function_calls>`;
  },
  note: 'string="true" marks a plain-text value, string="false" a JSON value (number, boolean, list, object).',
  result: (content) => `<function_results>\n<result>${content}</result>\n</function_results>`,
};

const KIMI: FormatWriter = {
  calls: (calls) => {
    const entries = calls.map(
      (call, index) =>
        `<|tool_call_begin|>functions.${call.name}:${index}<|tool_call_argument_begin|>${json(call.arguments)}<|tool_call_end|>`,
    );
    return `<|tool_calls_section_begin|>${entries.join('')}<|tool_calls_section_end|>`;
  },
  note: 'Number the calls of one reply :0, :1, …; the arguments are one JSON object.',
  result: (content, name, index) => `## Return of functions.${name}:${index}\n${content}`,
};

/** A JSON list of call objects between two markers. */
function jsonListWriter(
  open: string,
  close: string,
  entry: (call: CallToWrite, index: number) => unknown,
  result: FormatWriter['result'] = toolResponse,
): FormatWriter {
  return {
    calls: (calls) => `${open}${json(calls.map(entry))}${close}`,
    note: JSON_NOTE,
    result,
  };
}

/** One JSON object per call, each after its own marker. */
function jsonEachWriter(
  open: string,
  close: string,
  argumentsKey: string,
  separator = '\n',
): FormatWriter {
  return {
    calls: (calls) =>
      calls.map((call) => `${open}${callObject(call, argumentsKey)}${close}`).join(separator),
    note: JSON_NOTE,
    result: toolResponse,
  };
}

const nameArguments = (call: CallToWrite): unknown => ({
  name: call.name,
  arguments: call.arguments,
});

const LFM2 = jsonListWriter(
  '<|tool_call_start|>',
  '<|tool_call_end|>',
  nameArguments,
  (content) => `<|tool_response_start|>${content}<|tool_response_end|>`,
);

const LLAMA4: FormatWriter = {
  calls: (calls) =>
    `<|python_start|>${calls.map((call) => callObject(call, 'parameters')).join('; ')}<|python_end|>`,
  note: 'The parameters are one JSON object; separate several calls with `;`.',
  result: toolResponse,
};

const GPT_OSS: FormatWriter = {
  calls: (calls) =>
    calls
      .map(
        (call) =>
          `<|start|>assistant<|channel|>commentary to=functions.${call.name} <|constrain|>json<|message|>${json(call.arguments)}<|call|>`,
      )
      .join('\n'),
  note: JSON_NOTE,
  result: (content, name) => `functions.${name} returned:\n${content}`,
};

const COMMAND_R = jsonListWriter(
  '<|START_ACTION|>',
  '<|END_ACTION|>',
  (call, index) => ({
    tool_call_id: String(index),
    tool_name: call.name,
    parameters: call.arguments,
  }),
  (content) => `<|START_TOOL_RESULT|>${content}<|END_TOOL_RESULT|>`,
);

const FUNCTIONARY_V32: FormatWriter = {
  calls: (calls) => calls.map((call) => `>>>${call.name}\n${json(call.arguments)}`).join('\n'),
  note: 'Write `>>>all` before text for the user, and `>>>` with the tool name before each call.',
  result: toolResponse,
  reply: (content, callsText) =>
    content.trim() === '' ? callsText : `>>>all\n${content}\n${callsText}`,
};

const FUNCTIONARY_V31: FormatWriter = {
  calls: (calls) =>
    calls.map((call) => `<function=${call.name}>${json(call.arguments)}</function>`).join('\n'),
  note: JSON_NOTE,
  result: toolResponse,
};

const XLAM: FormatWriter = {
  calls: (calls) => json(calls.map(nameArguments)),
  note: JSON_NOTE,
  placement: 'When you call tools, the list is your whole reply, with no words around it.',
  result: toolResponse,
  // xLAM reads a reply that is nothing but the list: its calls stand alone, as its template writes them.
  reply: (_content, callsText) => callsText,
};

const WRITERS: Readonly<Record<string, FormatWriter>> = {
  hermes: HERMES,
  'qwen2.5-coder': HERMES,
  'qwen3-coder': functionTagWriter('<tool_call>', '</tool_call>'),
  'seed-oss': functionTagWriter('<seed:tool_call>', '</seed:tool_call>'),
  'glm-4.5': GLM,
  minimax: MINIMAX,
  'deepseek-v3': DEEPSEEK_V3,
  'deepseek-v3.1': DEEPSEEK_V31,
  'deepseek-v3.2': DEEPSEEK_V32,
  'kimi-k2': KIMI,
  lfm2: LFM2,
  llama4: LLAMA4,
  'gpt-oss': GPT_OSS,
  'command-r7b': COMMAND_R,
  nemotron: jsonListWriter('<TOOLCALL>', '</TOOLCALL>', nameArguments, (content) => {
    return `<TOOL_RESPONSE>${content}</TOOL_RESPONSE>`;
  }),
  jamba: jsonListWriter('<tool_calls>', '</tool_calls>', nameArguments),
  'hunyuan-a13b': jsonListWriter('<tool_calls>', '</tool_calls>', nameArguments),
  apertus: jsonListWriter('<|tools_prefix|>', '<|tools_suffix|>', (call) => ({
    [call.name]: call.arguments,
  })),
  internlm2: jsonEachWriter('<|action_start|><|plugin|>\n', '<|action_end|>', 'parameters'),
  'granite-20b-fc': jsonEachWriter('<function_call> ', '', 'arguments'),
  'functionary-v3.2': FUNCTIONARY_V32,
  'functionary-v3.1': FUNCTIONARY_V31,
  xlam: XLAM,
  gigachat3: jsonEachWriter('function call<|role_sep|>\n', '', 'arguments'),
};

/** The names of the formats with their own writer (every name in `TOOL_CALL_FORMATS`). */
export const WRITTEN_FORMAT_NAMES: readonly string[] = Object.keys(WRITERS);

function writerFor(format: ToolCallFormat | undefined): FormatWriter {
  return (format === undefined ? undefined : WRITERS[format.name]) ?? HERMES;
}

// ---------------------------------------------------------------------------------------------------------
// The instructions

/**
 * The calls of one reply written in `format`'s syntax (Hermes `<tool_call>` JSON when `format` is undefined or
 * has no writer), exactly as that format's reader parses them back; `tools` give the schemas XML-style values
 * are typed by.
 */
export function writeToolCalls(
  format: ToolCallFormat | undefined,
  calls: readonly CallToWrite[],
  tools: readonly OpenAIFunctionTool[],
): string {
  return writerFor(format).calls(calls, schemaLookup(tools));
}

/** The example call the instructions show: the first tool, its required parameters filled with placeholders. */
export function toolCallExample(
  format: ToolCallFormat | undefined,
  tools: readonly OpenAIFunctionTool[],
): ToolCallExample | undefined {
  const tool = tools[0];
  if (tool === undefined) return undefined;
  const call = { name: tool.function.name, arguments: exampleArguments(tool.function.parameters) };
  return { call, text: writeToolCalls(format, [call], tools) };
}

/**
 * A system-prompt section for a server that takes no `tools`: the tools (name, description, compact JSON
 * Schema parameters), how to call one in `format`'s own syntax with one example call that the format's reader
 * parses, and how to answer without a call. Empty when there are no tools.
 */
export function toolInstructions(
  format: ToolCallFormat | undefined,
  tools: readonly OpenAIFunctionTool[],
): string {
  const example = toolCallExample(format, tools);
  if (example === undefined) return '';
  const writer = writerFor(format);
  const list = tools.map((tool) => {
    const { name, description, parameters } = tool.function;
    const about = description.trim() === '' ? '' : ` ${oneLine(description)}`;
    return `- ${name}:${about} Parameters: ${json(parameters)}`;
  });
  return [
    '# Tools',
    'You can call these tools (parameters as JSON Schema):',
    ...list,
    `To call a tool, reply in exactly this form (${example.call.name} with placeholder values):`,
    example.text,
    writer.note,
    writer.placement ?? 'Put any words before the calls, none after.',
    'Give the required parameters; the results come back in the next message.',
    'If no tool is needed, answer in plain text without this form.',
  ]
    .filter((line) => line !== '')
    .join('\n');
}

function oneLine(text: string): string {
  return text.trim().replace(/\s+/g, ' ');
}

/** Placeholder arguments for a schema: its required parameters (or its first one) with a value of their type. */
function exampleArguments(parameters: JsonSchema): Record<string, unknown> {
  const properties = isPlainObject(parameters.properties) ? parameters.properties : {};
  const names = Object.keys(properties);
  const required = Array.isArray(parameters.required)
    ? parameters.required.filter((name): name is string => names.includes(String(name)))
    : [];
  const chosen = required.length > 0 ? required : names.slice(0, 1);
  const args: Record<string, unknown> = Object.create(null);
  for (const name of chosen) args[name] = placeholder(properties[name]);
  return { ...args };
}

function placeholder(schema: unknown): unknown {
  if (!isPlainObject(schema)) return '...';
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  if (Object.hasOwn(schema, 'default') && schema.default !== undefined) return schema.default;
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'integer':
    case 'number':
      return 1;
    case 'boolean':
      return true;
    case 'array':
      return [];
    case 'object':
      return {};
    case 'null':
      return null;
    default:
      return '...';
  }
}

function schemaLookup(tools: readonly OpenAIFunctionTool[]): SchemaOf {
  const schemas = new Map(tools.map((tool) => [tool.function.name, tool.function.parameters]));
  return (name) => schemas.get(name);
}

// ---------------------------------------------------------------------------------------------------------
// The conversation

/**
 * The conversation rewritten for a server that takes no tools: `toolInstructions` appended to the first system
 * message (or a system message added first), each assistant message's `toolCalls` written into its text in
 * `format`'s syntax, and each tool result turned into user text the way the family's template shows results
 * (`<tool_response>…</tool_response>`, …; consecutive results share one user message). Order is kept.
 * Arguments that are not a JSON object are written as `{}`.
 */
export function withToolInstructions(
  messages: readonly Message[],
  tools: readonly OpenAIFunctionTool[],
  format: ToolCallFormat | undefined,
): Message[] {
  const writer = writerFor(format);
  const schemaOf = schemaLookup(tools);
  const rewritten: Message[] = [];
  const calledBy = new Map<string, { readonly name: string; readonly index: number }>();
  let resultsAt = -1;
  for (const message of messages) {
    if (message.role === 'tool') {
      const called = calledBy.get(message.toolCallId ?? '');
      const text = writer.result(message.content, called?.name ?? 'tool', called?.index ?? 0);
      const previous = rewritten[resultsAt];
      if (previous !== undefined && resultsAt === rewritten.length - 1) {
        rewritten[resultsAt] = { role: 'user', content: `${previous.content}\n${text}` };
      } else {
        rewritten.push({ role: 'user', content: text });
        resultsAt = rewritten.length - 1;
      }
      continue;
    }
    rewritten.push(rewriteMessage(message, writer, schemaOf, calledBy));
  }
  return withInstructions(rewritten, toolInstructions(format, tools));
}

function rewriteMessage(
  message: Message,
  writer: FormatWriter,
  schemaOf: SchemaOf,
  calledBy: Map<string, { readonly name: string; readonly index: number }>,
): Message {
  const { toolCalls, ...rest } = message;
  if (toolCalls === undefined || toolCalls.length === 0) return rest;
  toolCalls.forEach((call, index) => {
    calledBy.set(call.id, { name: call.name, index });
  });
  const callsText = writer.calls(toolCalls.map(callToWrite), schemaOf);
  const reply = writer.reply ?? joinReply;
  return { ...rest, content: reply(message.content, callsText) };
}

function joinReply(content: string, callsText: string): string {
  return content.trim() === '' ? callsText : `${content.trimEnd()}\n${callsText}`;
}

function callToWrite(call: ToolCall): CallToWrite {
  let args: unknown;
  try {
    args = JSON.parse(call.arguments);
  } catch {
    args = undefined;
  }
  return { name: call.name, arguments: isPlainObject(args) ? args : {} };
}

function withInstructions(messages: Message[], instructions: string): Message[] {
  if (instructions === '') return messages;
  const first = messages.findIndex((message) => message.role === 'system');
  const system = messages[first];
  if (system === undefined) return [{ role: 'system', content: instructions }, ...messages];
  const content =
    system.content.trim() === '' ? instructions : `${system.content}\n\n${instructions}`;
  return messages.map((message, index) => (index === first ? { ...system, content } : message));
}
