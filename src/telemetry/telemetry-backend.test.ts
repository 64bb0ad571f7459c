import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteTelemetryBackend, telemetryBackend } from './telemetry-backend.js';
import { TelemetryStore } from './telemetry-store.js';
import { telemetryStoreContract } from './telemetry-store-contract.case.test.js';

const directory = mkdtempSync(join(tmpdir(), 'jarvis-telemetry-contract-'));
let places = 0;

afterAll(() => {
  rmSync(directory, { recursive: true, force: true });
});

describe('SqliteTelemetryBackend: the telemetry store contract', () => {
  telemetryStoreContract(async () => {
    places += 1;
    const dbPath = join(directory, `telemetry-${places}.db`);
    return {
      open: async (options = {}) =>
        new SqliteTelemetryBackend(new TelemetryStore({ dbPath, ...options })),
    };
  });
});

describe('telemetryBackend', () => {
  it('wraps a SQLite store and passes a backend through', async () => {
    const sqlite = new TelemetryStore({ dbPath: ':memory:' });
    const backend = telemetryBackend(sqlite);
    expect(backend).toBeInstanceOf(SqliteTelemetryBackend);
    expect(backend.location).toBe(':memory:');
    expect(telemetryBackend(backend)).toBe(backend);
    await backend.flush();
    await backend.close();
    expect(() => sqlite.recent()).toThrow(/closed/);
  });
});
