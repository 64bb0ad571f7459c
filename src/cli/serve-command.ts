import type { Command } from 'commander';
import type { CliIo } from './cli-io.js';
import { parseIntegerFlag, parseNameList } from './cli-options.js';
import { addJarvisFlags, type JarvisFlags } from './jarvis-flags.js';

/** The flags of `jarvis serve` as commander parses them. */
export interface ServeFlags extends JarvisFlags {
  readonly host?: string;
  readonly port?: number;
  readonly agent?: string;
  readonly tools?: readonly string[];
  readonly apiKey?: string;
  readonly yes?: boolean;
  readonly maxConcurrent?: number;
  readonly timeout?: number;
  readonly maxBodyBytes?: number;
  readonly cors?: readonly string[];
}

const SERVE_EXAMPLES = `
Examples:
  $ jarvis serve
  $ jarvis serve --tools calculator,think --port 8080
  $ OPENJARVIS_API_KEY=sk-... jarvis serve --host 0.0.0.0
  $ curl http://127.0.0.1:8000/v1/chat/completions -H 'content-type: application/json' \\
      -d '{"model": "<GET /v1/models>", "messages": [{"role": "user", "content": "Hi"}]}'

An OpenAI-compatible API: POST /v1/chat/completions (streamed or not), GET /v1/models, GET /health.
The agent runs its tools here; a request's own "tools" are refused (400). Tools that need confirmation are
refused unless --yes. Listening on anything but a loopback address requires an API key (--api-key or
OPENJARVIS_API_KEY), which clients send as "Authorization: Bearer <key>".
Ctrl-C or SIGTERM stops the server (exit 130 or 143).
`;

/** Registers `jarvis serve`. */
export function registerServeCommand(program: Command, io: CliIo): void {
  const command = program
    .command('serve')
    .description('Serve the agent and its tools as an OpenAI-compatible API.')
    .option('--host <address>', 'address to listen on (default 127.0.0.1)')
    .option(
      '-p, --port <n>',
      'port to listen on (default 8000)',
      parseIntegerFlag('--port', 0, 65535),
    )
    .option('-a, --agent <name>', 'agent that answers (see `jarvis agents list`)')
    .option(
      '-t, --tools <names>',
      'comma-separated tools the agent may run',
      parseNameList('--tools'),
    )
    .option('--api-key <key>', 'key clients must send as Bearer (default $OPENJARVIS_API_KEY)')
    .option('-y, --yes', 'approve every tool call that needs confirmation (refused otherwise)')
    .option(
      '--max-concurrent <n>',
      'most requests answered at once; more get 429 (default 4)',
      parseIntegerFlag('--max-concurrent', 1, 1000),
    )
    .option(
      '--timeout <seconds>',
      'longest a request may run (default 600)',
      parseIntegerFlag('--timeout', 1, 86_400),
    )
    .option(
      '--max-body-bytes <n>',
      'largest request body; larger get 413 (default 1048576)',
      parseIntegerFlag('--max-body-bytes', 1024, 1024 * 1024 * 1024),
    )
    .option(
      '--cors <origins>',
      'comma-separated origins allowed by CORS (default none)',
      parseNameList('--cors'),
    );
  addJarvisFlags(command).addHelpText('after', SERVE_EXAMPLES);
  command.action(async (flags: ServeFlags) => {
    const { runServe } = await import('./serve-action.js');
    await runServe(flags, io);
  });
}
