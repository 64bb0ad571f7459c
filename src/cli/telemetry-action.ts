import type { TelemetrySummaryEntry } from '../telemetry/index.js';
import type { CliIo } from './cli-io.js';
import type { ListFlags } from './command-flags.js';
import { openJarvis } from './jarvis-options.js';
import { formatTable } from './table.js';
import { existingTelemetry } from './telemetry-reader.js';

/** One row of the telemetry summary (per model and engine). */
export type TelemetryRow = TelemetrySummaryEntry;

/** `jarvis telemetry stats`: the per-model summary; an empty or missing store gives a friendly line. */
export async function runTelemetryStats(flags: ListFlags, io: CliIo): Promise<void> {
  const jarvis = await openJarvis(flags, io);
  try {
    const system = await jarvis.system();
    const rows = (await existingTelemetry(system)?.summary()) ?? [];
    if (flags.json === true) {
      io.stdout.write(`${JSON.stringify(rows.map(telemetryJson), null, 2)}\n`);
      return;
    }
    if (rows.length === 0) {
      io.stdout.write(
        'No model calls recorded yet: ask something with `jarvis ask "..."` first.\n',
      );
    } else {
      io.stdout.write(telemetryTable(rows));
    }
    if (!system.config.telemetry.enabled)
      io.stderr.write(
        'Telemetry is off: set `enabled = true` under [telemetry] in the config to record calls.\n',
      );
  } finally {
    await jarvis.close();
  }
}

/** One summary row as JSON with snake_case keys. */
export function telemetryJson(row: TelemetryRow): Record<string, unknown> {
  return {
    model: row.model,
    engine: row.engine,
    calls: row.calls,
    failures: row.failures,
    prompt_tokens: row.promptTokens,
    completion_tokens: row.completionTokens,
    total_tokens: row.totalTokens,
    mean_latency_seconds: row.meanLatencySeconds,
    p95_latency_seconds: row.p95LatencySeconds,
    mean_ttft_seconds: row.meanTtftSeconds,
    total_cost_usd: row.totalCostUsd,
  };
}

/** The summary as aligned columns. */
export function telemetryTable(rows: readonly TelemetryRow[]): string {
  const seconds = (value: number) => `${value.toFixed(2)}s`;
  return formatTable(
    rows.map((row) => [
      row.model,
      row.engine,
      String(row.calls),
      String(row.failures),
      String(row.promptTokens),
      String(row.completionTokens),
      seconds(row.meanLatencySeconds),
      seconds(row.p95LatencySeconds),
      seconds(row.meanTtftSeconds),
      `$${row.totalCostUsd.toFixed(4)}`,
    ]),
    {
      headers: [
        'MODEL',
        'ENGINE',
        'CALLS',
        'FAILED',
        'PROMPT_TOKENS',
        'COMPLETION_TOKENS',
        'MEAN_LATENCY',
        'P95_LATENCY',
        'MEAN_TTFT',
        'COST',
      ],
    },
  );
}
