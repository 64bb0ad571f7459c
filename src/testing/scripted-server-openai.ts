import {
  type ResolvedAnswer,
  type ResolvedToolCall,
  splitArguments,
  splitText,
} from './scripted-server-answer.js';
import type { RecordedRequest } from './scripted-server-types.js';

/** An answer rendered for one wire format: the whole JSON body and the streamed pieces. */
export interface RenderedAnswer {
  readonly json: unknown;
  /** Framed stream pieces that carry the answer (a cut stream sends some of these). */
  readonly chunks: readonly string[];
  /** Framed pieces that end the stream properly (finish, usage, terminator). */
  readonly tail: readonly string[];
}

/** How one API (OpenAI or Ollama) looks on the wire. */
export interface ScriptedWire {
  readonly chatPath: string;
  readonly modelsPath: string;
  readonly streamContentType: string;
  /** Whether the request asks for a streamed answer (the two APIs have different defaults). */
  isStream(request: RecordedRequest): boolean;
  /** Wraps JSON text as one stream piece. */
  frame(jsonText: string): string;
  render(
    answer: ResolvedAnswer,
    request: RecordedRequest,
    chunkChars: number | undefined,
  ): RenderedAnswer;
  errorBody(message: string, status: number): unknown;
  modelsBody(models: readonly string[]): unknown;
  /** Other GET endpoints of the API (path → body). */
  readonly extraGets: Readonly<Record<string, unknown>>;
}

const CREATED_SECONDS = 1_700_000_000;

/** The OpenAI Chat Completions API as vLLM, llama.cpp, SGLang and LM Studio serve it. */
export const openAIWire: ScriptedWire = {
  chatPath: '/v1/chat/completions',
  modelsPath: '/v1/models',
  streamContentType: 'text/event-stream',
  isStream: (request) => bodyField(request, 'stream') === true,
  frame: (jsonText) => `data: ${jsonText}\n\n`,
  render: renderOpenAI,
  errorBody: (message, status) => ({
    error: {
      message,
      type: status >= 500 ? 'server_error' : 'invalid_request_error',
      code: status,
    },
  }),
  modelsBody: (models) => ({
    object: 'list',
    data: models.map((id) => ({
      id,
      object: 'model',
      created: CREATED_SECONDS,
      owned_by: 'scripted',
    })),
  }),
  extraGets: {},
};

/** Reads a top-level field of the request's JSON body. */
export function bodyField(request: RecordedRequest, name: string): unknown {
  const body = request.body;
  return typeof body === 'object' && body !== null
    ? (body as Record<string, unknown>)[name]
    : undefined;
}

function renderOpenAI(
  answer: ResolvedAnswer,
  request: RecordedRequest,
  chunkChars: number | undefined,
): RenderedAnswer {
  const frame = (value: unknown) => openAIWire.frame(JSON.stringify(value));
  const chunk = (delta: unknown, finishReason: string | null = null) =>
    frame(completionChunk(answer, [{ index: 0, delta, finish_reason: finishReason }]));
  const chunks = [
    chunk({ role: 'assistant', content: '' }),
    ...splitText(answer.reasoning, chunkChars).map((piece) => chunk({ reasoning_content: piece })),
    ...splitText(answer.content, chunkChars).map((piece) => chunk({ content: piece })),
    ...answer.toolCalls.flatMap((call, index) =>
      toolCallDeltas(call, index).map((delta) => chunk({ tool_calls: [delta] })),
    ),
  ];
  const streamOptions = bodyField(request, 'stream_options');
  const includeUsage =
    typeof streamOptions === 'object' && streamOptions !== null && 'include_usage' in streamOptions
      ? streamOptions.include_usage === true
      : false;
  const tail = [chunk({}, answer.finishReason)];
  if (includeUsage && answer.usage !== null) {
    tail.push(frame({ ...completionChunk(answer, []), usage: wireUsage(answer) }));
  }
  tail.push('data: [DONE]\n\n');
  return { json: completionBody(answer), chunks, tail };
}

function completionChunk(answer: ResolvedAnswer, choices: unknown[]) {
  return {
    id: `chatcmpl-scripted-${answer.requestNumber}`,
    object: 'chat.completion.chunk',
    created: CREATED_SECONDS,
    model: answer.model,
    choices,
  };
}

function toolCallDeltas(call: ResolvedToolCall, index: number): unknown[] {
  const head = {
    index,
    ...(call.id === undefined ? {} : { id: call.id }),
    type: 'function',
    function: { name: call.name, arguments: '' },
  };
  return [
    head,
    ...splitArguments(call.argumentsText).map((piece) => ({
      index,
      function: { arguments: piece },
    })),
  ];
}

function completionBody(answer: ResolvedAnswer): unknown {
  const message: Record<string, unknown> = {
    role: 'assistant',
    content: answer.content === '' && answer.toolCalls.length > 0 ? null : answer.content,
  };
  if (answer.reasoning !== '') message.reasoning_content = answer.reasoning;
  if (answer.toolCalls.length > 0) {
    message.tool_calls = answer.toolCalls.map((call) => ({
      ...(call.id === undefined ? {} : { id: call.id }),
      type: 'function',
      function: {
        name: call.name,
        arguments: answer.argumentsAsObject ? call.argumentsValue : call.argumentsText,
      },
    }));
  }
  return {
    id: `chatcmpl-scripted-${answer.requestNumber}`,
    object: 'chat.completion',
    created: CREATED_SECONDS,
    model: answer.model,
    choices: [{ index: 0, message, finish_reason: answer.finishReason }],
    ...(answer.usage === null ? {} : { usage: wireUsage(answer) }),
  };
}

function wireUsage(answer: ResolvedAnswer) {
  return {
    prompt_tokens: answer.usage?.prompt ?? 0,
    completion_tokens: answer.usage?.completion ?? 0,
    total_tokens: answer.usage?.total ?? 0,
  };
}
