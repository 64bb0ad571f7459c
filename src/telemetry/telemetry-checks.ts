import { JarvisError } from '../core/index.js';
import { findTelemetryRecordProblem, type TelemetryRecord } from './telemetry-record.js';
import type { ListRunsOptions } from './trace-tables.js';

/** Runs a `listRuns` page holds when no `limit` is given, and the most it may ask for. */
const RUNS_LIMIT = { default: 20, max: 1000 } as const;

function invalid(message: string): JarvisError {
  return new JarvisError({ code: 'invalid_argument', message });
}

/** Throws a `JarvisError` (`invalid_argument`) naming what is wrong with a record a store was given. */
export function checkTelemetryRecord(record: TelemetryRecord): void {
  const problem = findTelemetryRecordProblem(record);
  if (problem !== undefined) throw invalid(`invalid telemetry record: ${problem}`);
}

/** The `sinceMs` of a summary (−∞ when absent); NaN is refused. */
export function checkSinceMs(sinceMs: number | undefined): number {
  const value = sinceMs ?? Number.NEGATIVE_INFINITY;
  if (typeof value !== 'number' || Number.isNaN(value)) {
    throw invalid('summary sinceMs must be a number of milliseconds since the Unix epoch');
  }
  return value;
}

/** The `limit` of `recent`: a whole number ≥ 0. */
export function checkRecentLimit(limit: number): number {
  if (!Number.isSafeInteger(limit) || limit < 0) {
    throw invalid(`recent limit must be a whole number >= 0 (got ${String(limit)})`);
  }
  return limit;
}

/** `listRuns` options with their defaults: `limit` 0-1000 (default 20), `beforeMs` a number (default +∞). */
export function checkListRuns(options: ListRunsOptions): { limit: number; beforeMs: number } {
  const limit = options.limit ?? RUNS_LIMIT.default;
  if (!Number.isSafeInteger(limit) || limit < 0 || limit > RUNS_LIMIT.max) {
    throw invalid(`listRuns limit must be a whole number from 0 to 1000 (got ${String(limit)})`);
  }
  const beforeMs = options.beforeMs ?? Number.POSITIVE_INFINITY;
  if (typeof beforeMs !== 'number' || Number.isNaN(beforeMs)) {
    throw invalid('listRuns beforeMs must be a number of milliseconds since the Unix epoch');
  }
  return { limit, beforeMs };
}

/** The `maxRuns` of a store (default `fallback`): a whole number ≥ 0. */
export function checkMaxRuns(maxRuns: number | undefined, fallback: number): number {
  const value = maxRuns ?? fallback;
  if (!Number.isSafeInteger(value) || value < 0) {
    throw invalid(`telemetry maxRuns must be a whole number >= 0 (got ${String(maxRuns)})`);
  }
  return value;
}

/** The error of a run-id prefix that matches more than one run. */
export function ambiguousRunError(id: string, first: string, second: string): JarvisError {
  return invalid(
    `run id '${id}' matches several runs (${first}, ${second}, …); give more of the id`,
  );
}
