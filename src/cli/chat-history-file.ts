import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Redactor } from '../core/index.js';
import { redactForOutput } from './cli-output.js';

/** The file in the OpenJarvis home that keeps the chat's input history across chats. */
export const CHAT_HISTORY_FILE = 'chat_history';
/** Most lines the history file keeps (the newest). */
export const CHAT_HISTORY_MAX_LINES = 1000;
/** Longer lines are not kept (pasted documents do not belong in the history). */
export const CHAT_HISTORY_MAX_LINE_CHARS = 2000;

/** Where the chat history of this home lives. */
export function chatHistoryPath(home: string): string {
  return join(home, CHAT_HISTORY_FILE);
}

/** The history lines of the file, newest first (as readline wants them); none when there is no file. */
export async function loadChatHistory(path: string): Promise<string[]> {
  const text = await readFile(path, 'utf8').catch(() => '');
  return keepable(text.split('\n'), undefined).slice(-CHAT_HISTORY_MAX_LINES).reverse();
}

/**
 * Writes the history (newest first, as readline keeps it) to `path`, oldest line first, at most
 * `CHAT_HISTORY_MAX_LINES`; the file is readable by its owner only (0600) and replaced whole. A line holding
 * a secret (one the redactor knows, or a secret-shaped value) is left out, as are overlong lines.
 */
export async function saveChatHistory(
  path: string,
  newestFirst: readonly string[],
  redactor: Redactor | undefined,
): Promise<void> {
  const lines = keepable([...newestFirst].reverse(), redactor).slice(-CHAT_HISTORY_MAX_LINES);
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, lines.length === 0 ? '' : `${lines.join('\n')}\n`, {
    encoding: 'utf8',
    mode: 0o600,
  });
  await chmod(temporary, 0o600);
  await rename(temporary, path);
}

/** The lines worth keeping: not blank, one line, not overlong, and not changed by redaction. */
function keepable(lines: readonly string[], redactor: Redactor | undefined): string[] {
  return lines.filter(
    (line) =>
      line.trim() !== '' &&
      !/[\r\n]/.test(line) &&
      line.length <= CHAT_HISTORY_MAX_LINE_CHARS &&
      redactForOutput(line, redactor) === line,
  );
}
