import { existsSync } from 'node:fs';
import type { JarvisSystem } from '../system/index.js';
import type { TelemetryBackend } from '../telemetry/index.js';

/**
 * The telemetry store to read, when there is one: on PostgreSQL always, on SQLite when its file exists (so
 * looking never creates a database).
 */
export function existingTelemetry(system: JarvisSystem): TelemetryBackend | undefined {
  const { dbPath } = system.config.telemetry;
  const present =
    system.config.storage.backend === 'postgres' || dbPath === ':memory:' || existsSync(dbPath);
  return present ? system.telemetry() : undefined;
}
