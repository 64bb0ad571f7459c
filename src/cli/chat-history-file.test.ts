import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRedactor } from '../core/index.js';
import {
  CHAT_HISTORY_MAX_LINES,
  chatHistoryPath,
  loadChatHistory,
  saveChatHistory,
} from './chat-history-file.js';

let home: string;

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'jarvis-chat-history-'));
});

afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

describe('chat history file', () => {
  it('round-trips newest first, stored oldest first, owner-only', async () => {
    const path = chatHistoryPath(join(home, 'oj'));
    expect(await loadChatHistory(path)).toEqual([]);
    await saveChatHistory(path, ['third', 'second', 'first'], undefined);
    expect(await readFile(path, 'utf8')).toBe('first\nsecond\nthird\n');
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(await loadChatHistory(path)).toEqual(['third', 'second', 'first']);
  });

  it('never keeps a secret the redactor knows, a secret-shaped value, or an overlong line', async () => {
    const path = chatHistoryPath(home);
    const redactor = createRedactor(['hunter2-config-secret']);
    await saveChatHistory(
      path,
      [
        'my password is hunter2-config-secret',
        'use sk-proj-abcdefghijklmnopqrstuvwxyz0123 please',
        'x'.repeat(5000),
        'kept',
      ],
      redactor,
    );
    expect(await readFile(path, 'utf8')).toBe('kept\n');
  });

  it('keeps only the newest lines, on save and on load', async () => {
    const path = chatHistoryPath(home);
    const many = Array.from({ length: CHAT_HISTORY_MAX_LINES + 5 }, (_, index) => `q${index}`);
    await saveChatHistory(path, many, undefined);
    const loaded = await loadChatHistory(path);
    expect(loaded).toHaveLength(CHAT_HISTORY_MAX_LINES);
    expect(loaded[0]).toBe('q0');
    await writeFile(path, `${many.join('\n')}\n`);
    expect((await loadChatHistory(path))[0]).toBe(`q${CHAT_HISTORY_MAX_LINES + 4}`);
  });
});
