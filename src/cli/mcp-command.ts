import type { Command } from 'commander';
import type { CliIo } from './cli-io.js';
import { parseIntegerFlag, parseNameList } from './cli-options.js';
import type { McpServeFlags } from './command-flags.js';
import { addJarvisFlags } from './jarvis-flags.js';

const EXAMPLES = `
Examples:
  $ jarvis mcp serve --tools calculator,think            # stdio, for an MCP client that starts it
  $ jarvis mcp serve --http 8765                          # Streamable HTTP at http://127.0.0.1:8765/mcp
  $ jarvis mcp serve --tools llm --engine ollama --model qwen3:8b

An MCP client's config entry for the stdio server:
  { "command": "jarvis", "args": ["mcp", "serve", "--tools", "calculator,think"] }
`;

/** Registers `jarvis mcp serve`. */
export function registerMcpCommand(program: Command, io: CliIo): void {
  const mcp = program
    .command('mcp')
    .description('Serve OpenJarvis tools to any MCP client.')
    .addHelpText('after', EXAMPLES);
  const serve = mcp
    .command('serve')
    .description(
      'Serve tools over MCP: stdio by default (stdout is the protocol channel), Streamable HTTP on 127.0.0.1 with --http.',
    )
    .option(
      '--tools <names>',
      'comma-separated tools to offer (default: every registered tool)',
      parseNameList('--tools'),
    )
    .option(
      '--http <port>',
      'serve Streamable HTTP on 127.0.0.1:<port> instead of stdio (0 picks a free port)',
      parseIntegerFlag('--http', 0, 65_535),
    )
    .option(
      '--allow-confirmation',
      'run tools that require confirmation (refused by default: an MCP client cannot ask you first)',
    )
    .addHelpText('after', EXAMPLES);
  addJarvisFlags(serve).action(async (flags: McpServeFlags) => {
    const { runMcpServe } = await import('./mcp-action.js');
    await runMcpServe(flags, io);
  });
}
