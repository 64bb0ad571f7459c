import { describe, expect, it } from 'vitest';
import { toolFailure, toolSuccess } from '../core/index.js';
import type { AskResult, SessionAskResult } from '../sdk/index.js';
import { askResultJson, formatAskJson, snakeCase } from './ask-json.js';

const RESULT: AskResult = {
  content: '51',
  turns: 2,
  toolResults: [
    toolSuccess('calculator', '51', { latencySeconds: 0.25 }),
    toolFailure('rm', 'confirmation_denied', 'denied'),
  ],
  usage: { promptTokens: 10, completionTokens: 5, totalTokens: 15 },
  model: 'm',
  engine: 'openai',
  agent: 'orchestrator',
  metadata: {
    max_turns_exceeded: true,
    usage: { promptTokens: 10, completionTokens: 5, totalTokens: 15 },
    nested: [{ HTTPStatus: 200 }],
  },
};

describe('askResultJson', () => {
  it('is the askFull result in snake_case, with error codes only on failures', () => {
    expect(askResultJson(RESULT)).toEqual({
      content: '51',
      turns: 2,
      tool_results: [
        { tool_name: 'calculator', content: '51', success: true, latency_seconds: 0.25 },
        {
          tool_name: 'rm',
          content: 'denied',
          success: false,
          error_code: 'confirmation_denied',
          latency_seconds: 0,
        },
      ],
      usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
      model: 'm',
      engine: 'openai',
      agent: 'orchestrator',
      metadata: {
        max_turns_exceeded: true,
        usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
        nested: [{ http_status: 200 }],
      },
    });
  });

  it('prints pretty JSON with two spaces and a final newline; big integers become text', () => {
    const text = formatAskJson({ ...RESULT, metadata: { big: 10n } });
    expect(text.startsWith('{\n  "content": "51",\n  "turns": 2,')).toBe(true);
    expect(text.endsWith('}\n')).toBe(true);
    expect(JSON.parse(text).metadata).toEqual({ big: '10' });
  });
});

describe('formatAskJson for a session turn', () => {
  const SESSION_RESULT: SessionAskResult = {
    ...RESULT,
    metadata: {},
    session: {
      id: 'ses_0123456789abcdef',
      name: undefined,
      title: 'What is 2+2?',
      turnCount: 3,
      createdMs: 0,
      updatedMs: 0,
      summary: undefined,
    },
    turn: 3,
    // Only the fields --json reports; the report may carry more (and `contextTokens` unknown here).
    history: {
      keptTurns: 1,
      foldedTurns: 1,
      summaryUpdated: true,
      promptTokens: 812,
      contextTokens: undefined,
    } as unknown as SessionAskResult['history'],
  };

  it('adds the session (name null when unnamed) and the history report in snake_case', () => {
    const json = JSON.parse(formatAskJson(SESSION_RESULT, 'max_turns'));
    expect(json.session).toEqual({ id: 'ses_0123456789abcdef', name: null, turn: 3 });
    expect(json.history).toEqual({
      kept_turns: 1,
      folded_turns: 1,
      summary_updated: true,
      prompt_tokens: 812,
      context_tokens: null,
    });
    expect(json.stop_reason).toBe('max_turns');
    expect(Object.keys(json).slice(-3)).toEqual(['stop_reason', 'session', 'history']);
  });

  it('leaves both out for a plain question', () => {
    const json = JSON.parse(formatAskJson(RESULT));
    expect(json).not.toHaveProperty('session');
    expect(json).not.toHaveProperty('history');
  });
});

describe('snakeCase', () => {
  it('converts camelCase and leaves snake_case alone', () => {
    expect(snakeCase('promptTokens')).toBe('prompt_tokens');
    expect(snakeCase('max_turns_exceeded')).toBe('max_turns_exceeded');
    expect(snakeCase('HTTPStatus')).toBe('http_status');
    expect(snakeCase('latencySeconds2')).toBe('latency_seconds2');
  });
});
