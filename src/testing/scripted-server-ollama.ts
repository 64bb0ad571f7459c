import { type ResolvedAnswer, splitText } from './scripted-server-answer.js';
import { bodyField, type RenderedAnswer, type ScriptedWire } from './scripted-server-openai.js';
import type { RecordedRequest, ScriptedModelDetails } from './scripted-server-types.js';

const CREATED_AT = '2025-01-01T00:00:00.000000000Z';
/** Durations (nanoseconds) the scripted Ollama reports; fixed so tests can assert them. */
const DURATIONS_NS = {
  total_duration: 5_000_000,
  load_duration: 1_000_000,
  prompt_eval_duration: 2_000_000,
  eval_duration: 2_000_000,
} as const;

/** Ollama's native API (`/api/chat`, `/api/tags`, `/api/version`); `stream` defaults to true there. */
export const ollamaWire: ScriptedWire = {
  chatPath: '/api/chat',
  modelsPath: '/api/tags',
  streamContentType: 'application/x-ndjson',
  isStream: (request) => bodyField(request, 'stream') !== false,
  frame: (jsonText) => `${jsonText}\n`,
  render: renderOllama,
  errorBody: (message) => ({ error: message }),
  modelsBody: (models) => ({
    models: models.map((name) => ({
      name,
      model: name,
      modified_at: CREATED_AT,
      size: 1,
      digest: 'scripted',
      details: { format: 'gguf' },
    })),
  }),
  extraGets: { '/api/version': { version: '0.12.0' } },
};

/** Ollama's path that describes one model. */
export const OLLAMA_SHOW_PATH = '/api/show';

/** The model an `/api/show` request names (`model`, or the older `name`); `undefined` when it names none. */
export function showRequestModel(request: RecordedRequest): string | undefined {
  const model = bodyField(request, 'model') ?? bodyField(request, 'name');
  return typeof model === 'string' && model !== '' ? model : undefined;
}

/** An `/api/show` answer in Ollama's shape: template, parser, details, model info and capabilities. */
export function ollamaShowBody(details: ScriptedModelDetails): unknown {
  const family = details.family ?? 'llama';
  return {
    modelfile: '# scripted',
    parameters: '',
    ...(details.template === undefined ? {} : { template: details.template }),
    ...(details.parser === undefined ? {} : { parser: details.parser }),
    details: {
      parent_model: '',
      format: 'gguf',
      family,
      families: [family],
      parameter_size: '1B',
      quantization_level: 'Q4_K_M',
    },
    model_info: { 'general.architecture': details.architecture ?? family },
    capabilities: details.capabilities ?? ['completion', 'tools'],
    modified_at: CREATED_AT,
  };
}

function renderOllama(
  answer: ResolvedAnswer,
  _request: RecordedRequest,
  chunkChars: number | undefined,
): RenderedAnswer {
  const frame = (value: unknown) => ollamaWire.frame(JSON.stringify(value));
  const piece = (message: Record<string, unknown>) =>
    frame({
      model: answer.model,
      created_at: CREATED_AT,
      message: { role: 'assistant', content: '', ...message },
      done: false,
    });
  const chunks = [
    ...splitText(answer.reasoning, chunkChars).map((text) => piece({ thinking: text })),
    ...splitText(answer.content, chunkChars).map((text) => piece({ content: text })),
  ];
  if (answer.toolCalls.length > 0) chunks.push(piece({ tool_calls: wireToolCalls(answer) }));
  const final = { ...finalFields(answer), message: { role: 'assistant', content: '' } };
  return { json: chatBody(answer), chunks, tail: [frame(final)] };
}

function chatBody(answer: ResolvedAnswer): unknown {
  const message: Record<string, unknown> = { role: 'assistant', content: answer.content };
  if (answer.reasoning !== '') message.thinking = answer.reasoning;
  if (answer.toolCalls.length > 0) message.tool_calls = wireToolCalls(answer);
  return { ...finalFields(answer), message };
}

function finalFields(answer: ResolvedAnswer) {
  return {
    model: answer.model,
    created_at: CREATED_AT,
    done: true,
    done_reason: answer.finishReason === 'tool_calls' ? 'stop' : answer.finishReason,
    ...DURATIONS_NS,
    ...(answer.usage === null
      ? {}
      : { prompt_eval_count: answer.usage.prompt, eval_count: answer.usage.completion }),
  };
}

/** Ollama sends tool-call arguments as a JSON object (and an id only when one was scripted). */
function wireToolCalls(answer: ResolvedAnswer): unknown[] {
  return answer.toolCalls.map((call, index) => ({
    ...(call.explicitId ? { id: call.id } : {}),
    function: { index, name: call.name, arguments: call.argumentsValue },
  }));
}
