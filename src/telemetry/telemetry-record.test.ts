import { describe, expect, it } from 'vitest';
import {
  buildTelemetryRecord,
  findTelemetryRecordProblem,
  isTelemetryRecord,
  throughputTokensPerSecond,
} from './telemetry-record.js';

describe('throughputTokensPerSecond', () => {
  it('divides completion tokens by the decoding time', () => {
    expect(throughputTokensPerSecond(30, 2.5, 0.5)).toBe(15);
  });

  it('is 0 when the decoding time is zero, negative or too small to divide by', () => {
    expect(throughputTokensPerSecond(30, 1, 1)).toBe(0);
    expect(throughputTokensPerSecond(30, 1, 2)).toBe(0);
    expect(throughputTokensPerSecond(30, Number.MIN_VALUE, 0)).toBe(0);
  });
});

describe('buildTelemetryRecord', () => {
  const measurement = {
    timestampMs: 10,
    model: 'm',
    engine: 'e',
    usage: { promptTokens: 1, completionTokens: 2, totalTokens: 3 },
    latencySeconds: 2,
    ttftSeconds: 1,
    costUsd: 0.5,
  };

  it('builds a frozen successful record without an error field', () => {
    const record = buildTelemetryRecord(measurement);
    expect(record).toEqual({
      timestampMs: 10,
      model: 'm',
      engine: 'e',
      promptTokens: 1,
      completionTokens: 2,
      totalTokens: 3,
      latencySeconds: 2,
      ttftSeconds: 1,
      throughputTokensPerSecond: 2,
      costUsd: 0.5,
      success: true,
    });
    expect(Object.isFrozen(record)).toBe(true);
    expect(isTelemetryRecord(record)).toBe(true);
  });

  it('marks a record with an error as failed', () => {
    expect(buildTelemetryRecord({ ...measurement, error: 'boom' })).toMatchObject({
      success: false,
      error: 'boom',
    });
  });
});

describe('findTelemetryRecordProblem', () => {
  const valid = buildTelemetryRecord({
    timestampMs: 10,
    model: 'm',
    engine: 'e',
    usage: { promptTokens: 1, completionTokens: 2, totalTokens: 3 },
    latencySeconds: 2,
    ttftSeconds: 1,
    costUsd: 0,
  });

  it.each([
    [null, 'a telemetry record must be an object'],
    [[], 'a telemetry record must be an object'],
    [{ ...valid, model: 3 }, "'model' must be a string"],
    [{ ...valid, totalTokens: '3' }, "'totalTokens' must be a finite number"],
    [{ ...valid, costUsd: Number.POSITIVE_INFINITY }, "'costUsd' must be a finite number"],
    [{ ...valid, latencySeconds: -1 }, "'latencySeconds' must not be negative"],
    [{ ...valid, success: 'yes' }, "'success' must be a boolean"],
    [{ ...valid, error: 42 }, "'error' must be a string when present"],
  ])('names the problem of %j', (value, problem) => {
    expect(findTelemetryRecordProblem(value)).toBe(problem);
    expect(isTelemetryRecord(value)).toBe(false);
  });
});
