/** Token counts of a run, as the server reports them. */
export interface ChatUsage {
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly totalTokens: number;
}

/** The events of `POST /api/chat`, read into the page's own types (snake_case keys become camelCase). */
export type ChatEvent =
  | { readonly type: 'run_start'; readonly sessionId: string }
  | { readonly type: 'text_delta'; readonly turn: number; readonly text: string }
  | {
      readonly type: 'tool_call_start';
      readonly id: string;
      readonly name: string;
      readonly arguments: string;
    }
  | {
      readonly type: 'tool_call_end';
      readonly id: string;
      readonly name: string;
      readonly result: string;
      readonly ok: boolean;
      readonly latencyMs: number;
      readonly errorCode?: string;
    }
  | {
      readonly type: 'result';
      readonly content: string;
      readonly usage: ChatUsage;
      readonly turns: number;
      readonly sessionId: string;
      readonly runId?: string;
    }
  | {
      readonly type: 'error';
      readonly message: string;
      readonly code: string;
      /** The session to continue; undefined when the failed question's new session was removed. */
      readonly sessionId?: string;
    };

type Fields = Readonly<Record<string, unknown>>;

/** A text field ('' when missing or not text). */
export function text(fields: Fields, key: string): string {
  const value = fields[key];
  return typeof value === 'string' ? value : '';
}

/** A number field (0 when missing or not a finite number). */
export function count(fields: Fields, key: string): number {
  const value = fields[key];
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

/** The object at `key` ({} when missing or not an object). */
export function object(fields: Fields, key: string): Fields {
  const value = fields[key];
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Fields)
    : {};
}

/** One SSE event of the chat as a `ChatEvent`; undefined for events the page does not know or bad data. */
export function chatEventOf(name: string, data: string): ChatEvent | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    return undefined;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return undefined;
  const fields = parsed as Fields;
  switch (name) {
    case 'run_start':
      return { type: 'run_start', sessionId: text(fields, 'session_id') };
    case 'text_delta':
      return { type: 'text_delta', turn: count(fields, 'turn'), text: text(fields, 'text') };
    case 'tool_call_start':
      return {
        type: 'tool_call_start',
        ...toolFields(fields),
        arguments: text(fields, 'arguments'),
      };
    case 'tool_call_end':
      return toolEnd(fields);
    case 'result':
      return resultOf(fields);
    case 'error': {
      const sessionId = text(fields, 'session_id');
      return {
        type: 'error',
        message: text(fields, 'message'),
        code: text(fields, 'code'),
        ...(sessionId === '' ? {} : { sessionId }),
      };
    }
    default:
      return undefined;
  }
}

function toolFields(fields: Fields): { id: string; name: string } {
  return { id: text(fields, 'id'), name: text(fields, 'name') };
}

function toolEnd(fields: Fields): ChatEvent {
  const errorCode = text(fields, 'error_code');
  return {
    type: 'tool_call_end',
    ...toolFields(fields),
    result: text(fields, 'result'),
    ok: fields.ok === true,
    latencyMs: count(fields, 'latency_ms'),
    ...(errorCode === '' ? {} : { errorCode }),
  };
}

function resultOf(fields: Fields): ChatEvent {
  const usage = object(fields, 'usage');
  const runId = text(fields, 'run_id');
  return {
    type: 'result',
    content: text(fields, 'content'),
    usage: {
      promptTokens: count(usage, 'prompt_tokens'),
      completionTokens: count(usage, 'completion_tokens'),
      totalTokens: count(usage, 'total_tokens'),
    },
    turns: count(fields, 'turns'),
    sessionId: text(fields, 'session_id'),
    ...(runId === '' ? {} : { runId }),
  };
}
