import type { ChatEvent, ChatUsage } from './chat-protocol.js';

/** A tool call as its card shows it. */
export interface ToolCard {
  readonly id: string;
  readonly name: string;
  readonly arguments: string;
  readonly status: 'running' | 'ok' | 'failed';
  readonly result?: string;
  readonly latencyMs?: number;
  readonly errorCode?: string;
}

/** One exchange of the chat: the question, the tool calls, the answer as it streams, and how it ended. */
export interface ChatTurn {
  readonly question: string;
  readonly answer: string;
  readonly tools: readonly ToolCard[];
  readonly status: 'streaming' | 'done' | 'failed' | 'stopped';
  /** The model turn the last text came from (a new one starts a new paragraph). */
  readonly lastTurn?: number;
  readonly error?: string;
  readonly runId?: string;
  readonly usage?: ChatUsage;
}

/** A new exchange waiting for its first event. */
export function startTurn(question: string): ChatTurn {
  return { question, answer: '', tools: [], status: 'streaming' };
}

/** The exchange after one more event of its stream. */
export function applyChatEvent(turn: ChatTurn, event: ChatEvent): ChatTurn {
  switch (event.type) {
    case 'text_delta': {
      const gap = turn.answer !== '' && event.turn !== turn.lastTurn ? '\n\n' : '';
      return { ...turn, answer: turn.answer + gap + event.text, lastTurn: event.turn };
    }
    case 'tool_call_start':
      return { ...turn, tools: [...turn.tools, { ...event, status: 'running' }] };
    case 'tool_call_end':
      return { ...turn, tools: endTool(turn.tools, event) };
    case 'result':
      return {
        ...turn,
        answer: turn.answer === '' ? event.content : turn.answer,
        status: 'done',
        usage: event.usage,
        ...(event.runId === undefined ? {} : { runId: event.runId }),
      };
    case 'error':
      return { ...turn, status: 'failed', error: event.message || event.code || 'The run failed' };
    default:
      return turn;
  }
}

/** The exchange when its stream broke off or was stopped before a result. */
export function endTurn(turn: ChatTurn, stopped: boolean, error?: string): ChatTurn {
  if (turn.status !== 'streaming') return turn;
  const tools = turn.tools.map(
    (tool): ToolCard =>
      tool.status === 'running' ? { ...tool, status: 'failed', errorCode: 'unfinished' } : tool,
  );
  if (stopped) return { ...turn, tools, status: 'stopped' };
  return { ...turn, tools, status: 'failed', error: error ?? 'The answer stopped before it ended' };
}

function endTool(
  tools: readonly ToolCard[],
  event: Extract<ChatEvent, { type: 'tool_call_end' }>,
): ToolCard[] {
  const ended: ToolCard = {
    id: event.id,
    name: event.name,
    arguments: tools.find((tool) => tool.id === event.id)?.arguments ?? '',
    status: event.ok ? 'ok' : 'failed',
    result: event.result,
    latencyMs: event.latencyMs,
    ...(event.errorCode === undefined ? {} : { errorCode: event.errorCode }),
  };
  const index = tools.findIndex((tool) => tool.id === event.id && tool.status === 'running');
  if (index < 0) return [...tools, ended];
  return tools.map((tool, i) => (i === index ? ended : tool));
}
