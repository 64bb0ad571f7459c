import { describe, expect, it } from 'vitest';
import { isTerminalSafe } from '../core/index.js';
import type { SessionInfo, SessionTurn } from '../sessions/index.js';
import { sessionDocument, sessionInfoJson } from '../system/index.js';
import { formatSessionShow, formatSessionTable, turnsCell } from './sessions-format.js';
import { codeBlock, sessionMarkdown } from './sessions-markdown.js';

const T0 = Date.UTC(2026, 11, 1, 12, 0, 0);
const ESC = '\u001b';

const INFO: SessionInfo = {
  id: 'ses_0123456789abcdef',
  name: 'maths',
  title: 'What is 15% of 340?',
  turnCount: 2,
  createdMs: T0,
  updatedMs: T0 + 65_000,
  summary: undefined,
};

const TOOL_TURN: SessionTurn = {
  seq: 1,
  messages: [
    { role: 'user', content: 'What is 15% of 340?' },
    {
      role: 'assistant',
      content: '',
      toolCalls: [{ id: 'call_1', name: 'calculator', arguments: '{"expression":"340*0.15"}' }],
    },
    { role: 'tool', content: `51${'0'.repeat(400)}`, toolCallId: 'call_1', name: 'calculator' },
    { role: 'assistant', content: 'It is 51.\nQuite simple.' },
  ],
  agent: 'orchestrator',
  model: 'qwen3:8b',
  engine: 'ollama',
  usage: { promptTokens: 40, completionTokens: 8, totalTokens: 48 },
  status: 'completed',
  startedMs: T0,
  endedMs: T0 + 1500,
};

const FAILED_TURN: SessionTurn = {
  seq: 2,
  messages: [{ role: 'user', content: `Say ${ESC}[2Khi` }],
  agent: 'simple',
  model: 'qwen3:8b',
  engine: 'ollama',
  usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
  status: 'failed',
  startedMs: T0 + 60_000,
  endedMs: T0 + 65_000,
};

describe('sessions list table and JSON', () => {
  it('shows id, name, turns, last update and title; folded turns are marked', () => {
    const folded: SessionInfo = {
      ...INFO,
      id: 'ses_fedcba9876543210',
      name: undefined,
      turnCount: 12,
      summary: { text: 'We did maths.', throughSeq: 8, updatedMs: T0 },
    };
    expect(turnsCell(folded)).toBe('12 (8 in summary)');
    expect(formatSessionTable([INFO, folded], undefined)).toBe(
      [
        'ID                    NAME   TURNS              UPDATED                    TITLE',
        'ses_0123456789abcdef  maths  2                  2026-12-01T12:01:05+00:00  What is 15% of 340?',
        'ses_fedcba9876543210  -      12 (8 in summary)  2026-12-01T12:01:05+00:00  What is 15% of 340?',
        '',
      ].join('\n'),
    );
    expect(sessionInfoJson(folded)).toEqual({
      id: 'ses_fedcba9876543210',
      name: null,
      title: 'What is 15% of 340?',
      turns: 12,
      created_at: '2026-12-01T12:00:00+00:00',
      updated_at: '2026-12-01T12:01:05+00:00',
      summary: { text: 'We did maths.', through_turn: 8, updated_at: '2026-12-01T12:00:00+00:00' },
    });
  });

  it('cuts the title to the terminal width and shows escapes in names visibly', () => {
    const hostile = { ...INFO, name: `x${ESC}[31m`, title: 'long '.repeat(40) };
    const table = formatSessionTable([hostile], 100);
    expect(isTerminalSafe(table)).toBe(true);
    for (const line of table.trimEnd().split('\n')) expect(line.length).toBeLessThanOrEqual(100);
    expect(table).toMatch(/…\n$/);
  });
});

describe('sessions show', () => {
  it('prints each turn: question, tool call and shortened result, answer, facts, failed status', () => {
    const text = formatSessionShow(INFO, [TOOL_TURN, FAILED_TURN]);
    expect(text).toContain(
      'Session ses_0123456789abcdef (maths): 2 turns, created 2026-12-01T12:00:00+00:00, updated 2026-12-01T12:01:05+00:00',
    );
    expect(text).toContain(
      '── Turn 1 · 2026-12-01T12:00:00+00:00 · orchestrator · qwen3:8b on ollama · 48 tokens (40 prompt, 8 answer)\nyou: What is 15% of 340?\n  → calculator {"expression":"340*0.15"}\n    ↳ 51000',
    );
    expect(text).toMatch(/↳ 510{197}…\n/);
    expect(text).toContain('jarvis: It is 51.\n        Quite simple.');
    expect(text).toMatch(/Turn 2 · .* · simple · qwen3:8b on ollama · FAILED\n/);
    expect(text).toContain('(failed before an answer)');
    expect(isTerminalSafe(text)).toBe(true);
  });

  it('prints the running summary and says when there are no turns', () => {
    const info = {
      ...INFO,
      turnCount: 0,
      summary: { text: 'Ana asked about\nLisbon.', throughSeq: 4, updatedMs: T0 },
    };
    const text = formatSessionShow(info, []);
    expect(text).toContain(
      'Summary of turns 1-4 (updated 2026-12-01T12:00:00+00:00):\n  Ana asked about\n  Lisbon.',
    );
    expect(text.endsWith('No turns yet.\n')).toBe(true);
  });
});

describe('session document (show --json, export --format json)', () => {
  it('holds every message in snake_case with the turn facts', () => {
    const document = sessionDocument(INFO, [TOOL_TURN]);
    expect(document.format).toBe('openjarvis.session');
    expect(document.version).toBe(1);
    expect(document.turns[0]).toMatchObject({
      turn: 1,
      status: 'completed',
      agent: 'orchestrator',
      model: 'qwen3:8b',
      engine: 'ollama',
      usage: { prompt_tokens: 40, completion_tokens: 8, total_tokens: 48 },
      started_at: '2026-12-01T12:00:00+00:00',
      ended_at: '2026-12-01T12:00:01.500000+00:00',
    });
    expect(document.turns[0]?.messages.slice(1, 3)).toEqual([
      {
        role: 'assistant',
        content: '',
        tool_calls: [{ id: 'call_1', name: 'calculator', arguments: '{"expression":"340*0.15"}' }],
      },
      {
        role: 'tool',
        content: `51${'0'.repeat(400)}`,
        tool_call_id: 'call_1',
        name: 'calculator',
      },
    ]);
  });
});

describe('session Markdown', () => {
  it('writes the facts, the summary and each turn with tool calls in code blocks', () => {
    const info = { ...INFO, summary: { text: 'Earlier: maths.', throughSeq: 1, updatedMs: T0 } };
    const md = sessionMarkdown(info, [TOOL_TURN, FAILED_TURN]);
    expect(
      md.startsWith('# Session maths (ses_0123456789abcdef)\n\n- Title: What is 15% of 340?\n'),
    ).toBe(true);
    expect(md).toContain('## Summary of turns 1-1\n\nEarlier: maths.');
    expect(md).toContain(
      '## Turn 1\n\n*2026-12-01T12:00:00+00:00 · orchestrator · qwen3:8b on ollama · 48 tokens (40 prompt, 8 answer)*',
    );
    expect(md).toContain(
      '**Tool call** `calculator`:\n\n```json\n{"expression":"340*0.15"}\n```\n\n**Result:**\n\n```\n510',
    );
    expect(md).toContain('**Jarvis:**\n\nIt is 51.\nQuite simple.');
    expect(md).toContain(
      '## Turn 2\n\n*2026-12-01T12:01:00+00:00 · simple · qwen3:8b on ollama* · **failed**',
    );
  });

  it('fences code with more backticks than the text holds', () => {
    expect(codeBlock('a ```js b', '')).toBe('````\na ```js b\n````');
    expect(codeBlock('plain\n\n', 'json')).toBe('```json\nplain\n```');
  });
});
