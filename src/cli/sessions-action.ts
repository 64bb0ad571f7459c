import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { SessionInfo, SessionStore } from '../sessions/index.js';
import type { JarvisSystem } from '../system/index.js';
import { sessionDocument, sessionInfoJson } from '../system/index.js';
import { UsageError } from './cli-error.js';
import type { CliIo } from './cli-io.js';
import { jsonText, terminalText } from './cli-output.js';
import type {
  SessionsExportFlags,
  SessionsListFlags,
  SessionsRmFlags,
  SessionsShowFlags,
} from './command-flags.js';
import { type JarvisFlags, openJarvis } from './jarvis-options.js';
import { canAsk, promptYesNo } from './prompt-yes-no.js';
import {
  formatSessionShow,
  formatSessionTable,
  sessionLabel,
  turnCount,
} from './sessions-format.js';
import { sessionMarkdown } from './sessions-markdown.js';
import { outputWidth } from './table.js';

/** What `sessions list` says when there are none, and how to start one. */
export const NO_SESSIONS =
  'No sessions yet. Start one with: jarvis ask --session <name> "<question>" (or jarvis ask --continue "<question>")\n';

/** Opens the system, runs `body` with its sessions store (absent when no sessions file exists yet), closes it. */
async function withSessions<T>(
  flags: JarvisFlags,
  io: CliIo,
  body: (store: SessionStore | undefined, system: JarvisSystem) => T | Promise<T>,
): Promise<T> {
  const jarvis = await openJarvis(flags, io);
  try {
    const system = await jarvis.system();
    // Reading commands never create the database.
    return await body(system.sessionsIfPresent(), system);
  } finally {
    await jarvis.close();
  }
}

/** The session with this id or name; none is a usage error naming `jarvis sessions list`. */
async function findSession(
  store: SessionStore | undefined,
  idOrName: string,
): Promise<SessionInfo> {
  const found = await store?.find(idOrName);
  if (found !== undefined) return found;
  throw new UsageError(
    `no session '${idOrName.slice(0, 80)}'; \`jarvis sessions list\` shows the sessions`,
  );
}

/** `jarvis sessions list`: the sessions, most recently updated first (a table, or `--json`). */
export async function runSessionsList(flags: SessionsListFlags, io: CliIo): Promise<void> {
  await withSessions(flags, io, async (store) => {
    const sessions = (await store?.list({ limit: flags.limit })) ?? [];
    if (flags.json === true) io.stdout.write(jsonText(sessions.map(sessionInfoJson)));
    else if (sessions.length === 0) io.stderr.write(NO_SESSIONS);
    else io.stdout.write(formatSessionTable(sessions, outputWidth(io.stdout)));
  });
}

/** `jarvis sessions show <id|name>`: the conversation turn by turn (or the JSON document with `--json`). */
export async function runSessionsShow(
  idOrName: string,
  flags: SessionsShowFlags,
  io: CliIo,
): Promise<void> {
  await withSessions(flags, io, async (store) => {
    const info = await findSession(store, idOrName);
    const turns = (await store?.turns(info.id)) ?? [];
    io.stdout.write(
      flags.json === true ? jsonText(sessionDocument(info, turns)) : formatSessionShow(info, turns),
    );
  });
}

/** `jarvis sessions rm <id|name>`: deletes a session and its turns, after a yes on a terminal or with `--yes`. */
export async function runSessionsRm(
  idOrName: string,
  flags: SessionsRmFlags,
  io: CliIo,
): Promise<void> {
  if (flags.yes !== true && !canAsk(io)) {
    throw new UsageError(
      `sessions rm deletes the session and its turns for good and there is no terminal to ask: run \`jarvis sessions rm ${idOrName.slice(0, 80)} --yes\` to confirm`,
    );
  }
  await withSessions(flags, io, async (store) => {
    const info = await findSession(store, idOrName);
    const what = `session ${sessionLabel(info)} and its ${turnCount(info.turnCount)}`;
    if (flags.yes !== true && !(await promptYesNo(`Delete ${what}?`, io))) {
      io.stderr.write('Nothing was deleted.\n');
      return;
    }
    await store?.remove(info.id);
    io.stdout.write(`Deleted ${what}.\n`);
  });
}

/**
 * `jarvis sessions export <id|name> --format md|json [--output path]`: the session as Markdown or as the JSON
 * document, on stdout or into a file.
 */
export async function runSessionsExport(
  idOrName: string,
  flags: SessionsExportFlags,
  io: CliIo,
): Promise<void> {
  await withSessions(flags, io, async (store) => {
    const info = await findSession(store, idOrName);
    const turns = (await store?.turns(info.id)) ?? [];
    const text =
      flags.format === 'json'
        ? jsonText(sessionDocument(info, turns))
        : sessionMarkdown(info, turns);
    if (flags.output === undefined) {
      io.stdout.write(flags.format === 'json' ? text : terminalText(text, io.stdout));
      return;
    }
    const path = resolve(io.cwd, flags.output);
    await writeFile(path, text, 'utf8').catch((error: unknown) => {
      const reason = error instanceof Error ? error.message : String(error);
      throw new Error(
        `could not write ${path}: ${reason}; check that the folder exists and can be written`,
      );
    });
    io.stderr.write(
      `Wrote ${sessionLabel(info)} (${turnCount(turns.length)}) to ${terminalText(path, io.stderr)}\n`,
    );
  });
}
