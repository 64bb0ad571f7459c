import { runJson, traceJson } from '../telemetry/index.js';
import { UsageError } from './cli-error.js';
import type { CliIo } from './cli-io.js';
import type { ListFlags } from './command-flags.js';
import { openJarvis } from './jarvis-options.js';
import { existingTelemetry } from './telemetry-reader.js';
import { runsTable, traceTimeline } from './telemetry-runs-format.js';

/** Flags of `jarvis telemetry runs`. */
export interface TelemetryRunsFlags extends ListFlags {
  readonly limit?: number;
}

/** `jarvis telemetry runs`: the latest runs, newest first. */
export async function runTelemetryRuns(flags: TelemetryRunsFlags, io: CliIo): Promise<void> {
  const jarvis = await openJarvis(flags, io);
  try {
    const system = await jarvis.system();
    const runs = (await existingTelemetry(system)?.listRuns({ limit: flags.limit ?? 20 })) ?? [];
    if (flags.json === true) {
      io.stdout.write(`${JSON.stringify(runs.map(runJson), null, 2)}\n`);
    } else if (runs.length === 0) {
      io.stdout.write('No runs recorded yet: ask something with `jarvis ask "..."` first.\n');
    } else {
      io.stdout.write(runsTable(runs));
    }
  } finally {
    await jarvis.close();
  }
}

/** `jarvis telemetry show <id>`: one run's timeline (the id or a unique prefix of 4+ characters). */
export async function runTelemetryShow(id: string, flags: ListFlags, io: CliIo): Promise<void> {
  if (!/^[0-9a-f]{4,32}$/i.test(id)) {
    throw new UsageError(
      `'${id.slice(0, 40)}' is not a run id: give the id (or its first 4+ hex digits) from \`jarvis telemetry runs\``,
    );
  }
  const jarvis = await openJarvis(flags, io);
  try {
    const system = await jarvis.system();
    const run = await existingTelemetry(system)?.getRun(id.toLowerCase());
    if (run === undefined) {
      throw new UsageError(`No run with id '${id}': list the runs with \`jarvis telemetry runs\``);
    }
    io.stdout.write(
      flags.json === true ? `${JSON.stringify(traceJson(run), null, 2)}\n` : traceTimeline(run),
    );
  } finally {
    await jarvis.close();
  }
}
