import type { Command } from 'commander';
import type { CliIo } from './cli-io.js';
import { parseIntegerFlag } from './cli-options.js';
import type { ListFlags } from './command-flags.js';
import { addJarvisFlags } from './jarvis-flags.js';
import type { TelemetryRunsFlags } from './telemetry-runs-action.js';

const TELEMETRY_EXAMPLES = `
Examples:
  $ jarvis telemetry stats
  $ jarvis telemetry stats --json
  $ jarvis telemetry runs --limit 5
  $ jarvis telemetry show 3f2a9c1e
`;

/** Registers `jarvis telemetry stats` (also what `jarvis telemetry` alone runs), `runs` and `show <id>`. */
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
  registerRunsCommands(telemetry, io);
}

function registerRunsCommands(telemetry: Command, io: CliIo): void {
  const runs = telemetry
    .command('runs')
    .description('The latest runs: id, start, agent, model, turns, tokens, latency, status.')
    .option('--json', 'print JSON (snake_case) instead of a table')
    .option('--limit <n>', 'how many runs (default 20)', parseIntegerFlag('--limit', 1, 1000));
  addJarvisFlags(runs, { engine: false }).action(async (flags: TelemetryRunsFlags) => {
    const { runTelemetryRuns } = await import('./telemetry-runs-action.js');
    await runTelemetryRuns(flags, io);
  });
  const show = telemetry
    .command('show <id>')
    .description('One run as a timeline: turns, model calls (tokens, ttft) and tool calls.')
    .option('--json', 'print the run and its span tree as JSON');
  addJarvisFlags(show, { engine: false }).action(async (id: string, flags: ListFlags) => {
    const { runTelemetryShow } = await import('./telemetry-runs-action.js');
    await runTelemetryShow(id, flags, io);
  });
}
