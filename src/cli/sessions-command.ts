import type { Command } from 'commander';
import { UsageError } from './cli-exit.js';
import type { CliIo } from './cli-io.js';
import { parseIntegerFlag } from './cli-options.js';
import type {
  SessionsExportFlags,
  SessionsListFlags,
  SessionsRmFlags,
  SessionsShowFlags,
} from './command-flags.js';
import { addJarvisFlags } from './jarvis-flags.js';

const EXAMPLES = `
Examples:
  $ jarvis ask --session trip "Plan three days in Lisbon"
  $ jarvis ask --continue "Make day two cheaper"
  $ jarvis sessions list
  $ jarvis sessions show trip
  $ jarvis sessions export trip --format md --output trip.md
  $ jarvis sessions rm trip --yes

A session is named by its id (ses_ and 16 hex digits) or by its name.
`;

/** The JSON document of `show --json` and `export --format json`, described for the help text. */
export const SESSION_JSON_HELP = `
JSON document (the same for \`sessions show --json\`; fields are only ever added):
  {
    "format": "openjarvis.session", "version": 1,
    "session": { "id", "name" (or null), "title", "turns" (count), "created_at", "updated_at",
                 "summary": null or { "text", "through_turn", "updated_at" } },
    "turns": [ { "turn" (from 1), "status" ("completed", "cancelled" or "failed"), "agent", "model",
                 "engine", "usage": { "prompt_tokens", "completion_tokens", "total_tokens" },
                 "started_at", "ended_at",
                 "messages": [ { "role" ("user", "assistant", "tool", "system"), "content",
                                 "tool_calls"?: [ { "id", "name", "arguments" (JSON text) } ],
                                 "tool_call_id"? (on tool results), "name"?, "metadata"? } ] } ]
  }
Times are ISO 8601 in UTC (2026-12-01T12:00:00+00:00). The summary stands in for turns 1 to through_turn
when the history is sent to the model; those turns are still listed in full.
`;

/** Registers `jarvis sessions list|show|rm|export`. */
export function registerSessionsCommand(program: Command, io: CliIo): void {
  const sessions = program
    .command('sessions')
    .description('List, show, export and delete stored conversations (`jarvis ask --session`).')
    .addHelpText('after', EXAMPLES);
  registerList(sessions, io);
  registerShow(sessions, io);
  registerRm(sessions, io);
  registerExport(sessions, io);
}

function registerList(sessions: Command, io: CliIo): void {
  const command = sessions
    .command('list')
    .description(
      'List the sessions, most recently updated first (TURNS shows how many are folded into a summary).',
    )
    .option('--limit <n>', 'how many sessions (default 50)', parseIntegerFlag('--limit', 1, 10_000))
    .option('--json', 'print the sessions as a JSON array');
  addJarvisFlags(command, { engine: false }).action(async (flags: SessionsListFlags) => {
    const { runSessionsList } = await import('./sessions-action.js');
    await runSessionsList(flags, io);
  });
}

function registerShow(sessions: Command, io: CliIo): void {
  const command = sessions
    .command('show')
    .description(
      'Show a conversation turn by turn: questions, tool calls (shortened), answers, agent, model, usage.',
    )
    .argument('<id|name>', 'the session (see `jarvis sessions list`)')
    .option('--json', 'print the whole session as the JSON document of `sessions export`')
    .addHelpText('after', SESSION_JSON_HELP);
  addJarvisFlags(command, { engine: false }).action(
    async (idOrName: string, flags: SessionsShowFlags) => {
      const { runSessionsShow } = await import('./sessions-action.js');
      await runSessionsShow(idOrName, flags, io);
    },
  );
}

function registerRm(sessions: Command, io: CliIo): void {
  const command = sessions
    .command('rm')
    .description(
      'Delete a session and its turns (asks first on a terminal; elsewhere needs --yes).',
    )
    .argument('<id|name>', 'the session (see `jarvis sessions list`)')
    .option('-y, --yes', 'delete without asking');
  addJarvisFlags(command, { engine: false }).action(
    async (idOrName: string, flags: SessionsRmFlags) => {
      const { runSessionsRm } = await import('./sessions-action.js');
      await runSessionsRm(idOrName, flags, io);
    },
  );
}

function registerExport(sessions: Command, io: CliIo): void {
  const command = sessions
    .command('export')
    .description('Write a session as Markdown (to read) or JSON (complete), to stdout or a file.')
    .argument('<id|name>', 'the session (see `jarvis sessions list`)')
    .option('--format <format>', 'md or json', parseExportFormat, 'md')
    .option('-o, --output <path>', 'write to this file instead of stdout')
    .addHelpText('after', SESSION_JSON_HELP);
  addJarvisFlags(command, { engine: false }).action(
    async (idOrName: string, flags: SessionsExportFlags) => {
      const { runSessionsExport } = await import('./sessions-action.js');
      await runSessionsExport(idOrName, flags, io);
    },
  );
}

/** `md` or `json` (`markdown` is taken for `md`); anything else is a usage error. */
export function parseExportFormat(value: string): 'md' | 'json' {
  const format = value.trim().toLowerCase();
  if (format === 'md' || format === 'markdown') return 'md';
  if (format === 'json') return 'json';
  throw new UsageError(`--format must be md or json (got '${value}')`);
}
