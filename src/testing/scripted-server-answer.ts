import type { RecordedRequest, ScriptedAnswer } from './scripted-server-types.js';

/** A scripted tool call with its id decided and its arguments in both shapes. */
export interface ResolvedToolCall {
  /** `undefined` when the script asked for the id to be left off the wire. */
  readonly id: string | undefined;
  /** Whether the script named the id (Ollama sends ids only then). */
  readonly explicitId: boolean;
  readonly name: string;
  /** The arguments as JSON text (what an OpenAI server sends). */
  readonly argumentsText: string;
  /** The arguments as the script gave them, or parsed from text when they are a JSON object. */
  readonly argumentsValue: unknown;
}

/** A scripted answer with every default filled in, ready to be rendered in either wire format. */
export interface ResolvedAnswer {
  readonly content: string;
  readonly reasoning: string;
  readonly toolCalls: readonly ResolvedToolCall[];
  readonly finishReason: string;
  readonly usage: {
    readonly prompt: number;
    readonly completion: number;
    readonly total: number;
  } | null;
  readonly model: string;
  readonly argumentsAsObject: boolean;
  /** The n-th model request of this server (1-based), used in generated ids. */
  readonly requestNumber: number;
}

/** The text a cut stream sends when the script names no answer. */
export const DEFAULT_CUT_ANSWER: ScriptedAnswer = {
  content: 'This answer is cut off before it ends properly.',
};

/** Fills in the defaults of a scripted answer for the given request. */
export function resolveAnswer(
  answer: ScriptedAnswer,
  request: RecordedRequest,
  requestNumber: number,
): ResolvedAnswer {
  const toolCalls = (answer.toolCalls ?? []).map((call, index) => ({
    id: call.id === null ? undefined : (call.id ?? `call_scripted_${requestNumber}_${index}`),
    explicitId: typeof call.id === 'string',
    name: call.name,
    argumentsText:
      typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
    argumentsValue:
      typeof call.arguments === 'string' ? parseObject(call.arguments) : call.arguments,
  }));
  const content = answer.content ?? '';
  const reasoning = answer.reasoning ?? '';
  return {
    content,
    reasoning,
    toolCalls,
    finishReason: answer.finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop'),
    usage: resolveUsage(
      answer,
      request,
      `${reasoning}${content}${toolCalls.map((c) => c.argumentsText).join('')}`,
    ),
    model: answer.model ?? requestedModel(request),
    argumentsAsObject: answer.argumentsAsObject ?? false,
    requestNumber,
  };
}

function resolveUsage(answer: ScriptedAnswer, request: RecordedRequest, completionText: string) {
  if (answer.usage === null) return null;
  const prompt = answer.usage?.promptTokens ?? Math.ceil(request.rawBody.length / 4);
  const completion = answer.usage?.completionTokens ?? Math.ceil(completionText.length / 4);
  return { prompt, completion, total: answer.usage?.totalTokens ?? prompt + completion };
}

/** The `model` field of a request body, or `scripted-model`. */
export function requestedModel(request: RecordedRequest): string {
  const body = request.body;
  if (
    typeof body === 'object' &&
    body !== null &&
    'model' in body &&
    typeof body.model === 'string'
  ) {
    return body.model;
  }
  return 'scripted-model';
}

/** Parses JSON object text; anything else is returned unchanged, as a broken server would send it. */
function parseObject(text: string): unknown {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : text;
  } catch {
    return text;
  }
}

/** Cuts streamed text into pieces: fixed-size slices, or one word (with its trailing space) per piece. */
export function splitText(text: string, chunkChars: number | undefined): string[] {
  if (text === '') return [];
  if (chunkChars !== undefined && chunkChars > 0) {
    const pieces: string[] = [];
    for (let start = 0; start < text.length; start += chunkChars) {
      pieces.push(text.slice(start, start + chunkChars));
    }
    return pieces;
  }
  return text.match(/\S+\s*|\s+/g) ?? [text];
}

/** Cuts tool-call argument text into (up to) three pieces, as servers stream them. */
export function splitArguments(text: string): string[] {
  if (text.length < 3) return text === '' ? [] : [text];
  const third = Math.ceil(text.length / 3);
  return [text.slice(0, third), text.slice(third, 2 * third), text.slice(2 * third)];
}
