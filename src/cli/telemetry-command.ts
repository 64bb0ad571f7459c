import type { Command } from 'commander';
import type { CliIo } from './cli-io.js';
import type { ListFlags } from './command-flags.js';
import { addJarvisFlags } from './jarvis-options.js';

const TELEMETRY_EXAMPLES = `
Examples:
  $ jarvis telemetry stats
  $ jarvis telemetry stats --json
`;

/** Registers `jarvis telemetry stats` (also what `jarvis telemetry` alone runs). */
export function registerTelemetryCommand(program: Command, io: CliIo): void {
  const telemetry = program
    .command('telemetry')
    .description('Inspect the recorded model calls (telemetry).')
    .addHelpText('after', TELEMETRY_EXAMPLES);
  const stats = telemetry
    .command('stats', { isDefault: true })
    .description(
      'Per model and engine: calls, failures, tokens, latency, time to first token, cost.',
    )
    .option('--json', 'print JSON (snake_case) instead of a table');
  addJarvisFlags(stats, { engine: false })
    .addHelpText('after', TELEMETRY_EXAMPLES)
    .action(async (flags: ListFlags) => {
      const { runTelemetryStats } = await import('./telemetry-action.js');
      await runTelemetryStats(flags, io);
    });
}
