import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { EventBus } from '../core/index.js';
import { SQLITE_TELEMETRY_MAX_BATCH, SqliteTelemetryBackend } from './sqlite-telemetry-backend.js';
import { TelemetryStore } from './telemetry-store.js';
import { finishedTrace, telemetryRecord } from './telemetry-store-contract.case.test.js';
import type { FinishedTrace } from './trace-types.js';

const directory = mkdtempSync(join(tmpdir(), 'jarvis-sqlite-backend-'));
let places = 0;
const opened: SqliteTelemetryBackend[] = [];

function open(dbPath = join(directory, `telemetry-${++places}.db`)): SqliteTelemetryBackend {
  const backend = new SqliteTelemetryBackend(new TelemetryStore({ dbPath }));
  opened.push(backend);
  return backend;
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A run whose span attributes cannot be turned into JSON, so the database write of it fails. */
function unstorableTrace(id: string): FinishedTrace {
  const trace = finishedTrace(id, 5);
  const [first, ...rest] = trace.spans;
  const attributes = { ...first?.attributes, size: 1n } as unknown as Record<string, string>;
  return { ...trace, spans: [{ ...(first as FinishedTrace['spans'][0]), attributes }, ...rest] };
}

afterEach(async () => {
  for (const backend of opened.splice(0)) await backend.close();
});

afterAll(() => {
  rmSync(directory, { recursive: true, force: true });
});

describe('SqliteTelemetryBackend batching', () => {
  it('writes the records and runs of one turn in one transaction, and a read sees them at once', async () => {
    const backend = open();
    const writeBatch = vi.spyOn(backend.sqlite, 'writeBatch');
    for (const timestampMs of [1, 2, 3]) backend.record(telemetryRecord({ timestampMs }));
    backend.recordRun(finishedTrace('run00001', 1));
    backend.recordRun(finishedTrace('run00002', 2));
    expect(writeBatch).not.toHaveBeenCalled();
    expect((await backend.recent(10)).map((record) => record.timestampMs)).toEqual([3, 2, 1]);
    expect((await backend.listRuns()).map((run) => run.id)).toEqual(['run00002', 'run00001']);
    expect(writeBatch).toHaveBeenCalledTimes(1);
    expect(writeBatch.mock.calls[0]?.[0]).toHaveLength(3);
    expect(writeBatch.mock.calls[0]?.[1]).toHaveLength(2);
  });

  it('writes after the turn without being asked, and a full batch at once', async () => {
    const backend = open();
    const writeBatch = vi.spyOn(backend.sqlite, 'writeBatch');
    const bus = new EventBus();
    backend.attach(bus);
    bus.publish('telemetry_record', { record: telemetryRecord({ model: 'from the bus' }) });
    backend.traceSink().runEnded?.(finishedTrace('run00003', 3));
    await nextTurn();
    expect(writeBatch).toHaveBeenCalledTimes(1);
    expect(backend.sqlite.recent(5)).toEqual([telemetryRecord({ model: 'from the bus' })]);
    expect(backend.sqlite.listRuns().map((run) => run.id)).toEqual(['run00003']);
    for (let i = 0; i < SQLITE_TELEMETRY_MAX_BATCH; i++) backend.record(telemetryRecord());
    expect(writeBatch).toHaveBeenCalledTimes(2);
    expect(backend.sqlite.recent(1000)).toHaveLength(SQLITE_TELEMETRY_MAX_BATCH + 1);
    await nextTurn();
    expect(writeBatch).toHaveBeenCalledTimes(2);
  });

  it('stores the rest of a batch the database refuses and counts only the item it refused', async () => {
    const backend = open();
    backend.record(telemetryRecord({ model: 'before' }));
    backend.recordRun(unstorableTrace('bad00001'));
    backend.recordRun(finishedTrace('good0001', 7));
    backend.record(telemetryRecord({ model: 'after' }));
    await backend.flush();
    expect(backend.writeFailures).toBe(1);
    expect(backend.lastWriteError).toBeInstanceOf(TypeError);
    expect((await backend.recent(5)).map((record) => record.model).sort()).toEqual([
      'after',
      'before',
    ]);
    expect((await backend.listRuns()).map((run) => run.id)).toEqual(['good0001']);
    expect(await backend.getRun('bad00001')).toBeUndefined();
  });

  it('writes what is queued when closed, and refuses writes after', async () => {
    const dbPath = join(directory, 'closed.db');
    const backend = open(dbPath);
    backend.record(telemetryRecord({ model: 'queued' }));
    backend.recordRun(finishedTrace('run00004', 4));
    await backend.close();
    expect(() => backend.record(telemetryRecord())).toThrow(/closed/);
    const reopened = open(dbPath);
    expect((await reopened.recent(5)).map((record) => record.model)).toEqual(['queued']);
    expect((await reopened.getRun('run00004'))?.id).toBe('run00004');
    expect(reopened.writeFailures).toBe(0);
  });
});
