import { describe, expect, it } from 'vitest';
import type { CatalogModel } from '../engine/index.js';
import { formatBytes } from '../engine/index.js';
import { UsageError } from './cli-error.js';
import {
  formatPullProgress,
  formatTimeLeft,
  localFileFor,
  quarterReached,
} from './models-pull-action.js';

const progress = (
  downloadedBytes: number,
  totalBytes: number,
  bytesPerSecond: number,
  estimatedTimeLeftMs: number,
) => ({
  downloadedBytes,
  totalBytes,
  bytesPerSecond,
  estimatedTimeLeftMs,
});

describe('formatPullProgress', () => {
  it('shows bytes, share, rate and time left', () => {
    expect(formatPullProgress(progress(4_200_000, 11_600_000, 2_100_000, 3_500), formatBytes)).toBe(
      '4.2 MB / 11.6 MB (36%)  2.1 MB/s  4s left',
    );
  });

  it('leaves out what is not known yet', () => {
    expect(formatPullProgress(progress(0, 0, 0, Number.POSITIVE_INFINITY), formatBytes)).toBe(
      '0 B  time left unknown',
    );
    expect(formatPullProgress(progress(500, 1000, Number.NaN, 1000), formatBytes)).toBe(
      '500 B / 1.0 kB (50%)  1s left',
    );
  });
});

describe('formatTimeLeft', () => {
  it('uses seconds, then minutes, then hours', () => {
    expect(formatTimeLeft(45_000)).toBe('45s left');
    expect(formatTimeLeft(185_000)).toBe('3m 05s left');
    expect(formatTimeLeft(3_720_000)).toBe('1h 02m left');
    expect(formatTimeLeft(-1)).toBe('time left unknown');
    expect(formatTimeLeft(840 * 3_600_000)).toBe('time left unknown');
  });
});

describe('quarterReached', () => {
  it('counts completed quarters, 0 when the total is unknown', () => {
    expect(quarterReached(progress(0, 100, 1, 1))).toBe(0);
    expect(quarterReached(progress(50, 100, 1, 1))).toBe(2);
    expect(quarterReached(progress(100, 100, 1, 1))).toBe(4);
    expect(quarterReached(progress(100, 0, 1, 1))).toBe(0);
  });
});

describe('localFileFor', () => {
  const catalog: readonly CatalogModel[] = [
    {
      name: 'tiny',
      repository: 'owner/Tiny-GGUF',
      file: 'Tiny-Q8_0.gguf',
      quantization: 'Q8_0',
      sizeBytes: 1,
      sha256: undefined,
      pinned: false,
      license: 'mit',
    },
  ];

  it('finds a file by name, by name without .gguf, and by catalog name', () => {
    expect(localFileFor('a.gguf', ['a.gguf'], catalog)).toBe('a.gguf');
    expect(localFileFor('a', ['a.gguf'], catalog)).toBe('a.gguf');
    expect(localFileFor('tiny', ['hf_owner_Tiny-Q8_0.gguf'], catalog)).toBe(
      'hf_owner_Tiny-Q8_0.gguf',
    );
    expect(localFileFor('b', ['a.gguf'], catalog)).toBeUndefined();
  });

  it('refuses paths, parent folders and empty names', () => {
    for (const name of ['../a.gguf', '/etc/a.gguf', 'sub/a.gguf', '..', '']) {
      expect(() => localFileFor(name, ['a.gguf'], catalog)).toThrow(UsageError);
    }
  });
});
