import { describe, expect, it } from 'vitest';
import type { IndexSummary } from '../memory/index.js';
import { failureWarnings, summaryJson, summaryLine } from './memory-index-action.js';

const SUMMARY: IndexSummary = {
  files: 2,
  chunks: 5,
  unchanged: 0,
  skipped: [
    { path: '/docs/\u001b[31mred.txt', reason: 'failed', detail: 'disk\nsaid no' },
    { path: '/docs/.env', reason: 'hidden' },
  ],
};

describe('memory index output', () => {
  it('warns about each file that failed, naming it escape-safe', () => {
    expect(failureWarnings(SUMMARY)).toBe(
      'warning: could not index /docs/^[[31mred.txt (disk\\nsaid no); skipped it.\n',
    );
    expect(failureWarnings({ ...SUMMARY, skipped: [] })).toBe('');
  });

  it('counts indexed and skipped files, failed ones included', () => {
    expect(summaryLine(SUMMARY)).toBe(
      'Indexed 2 files: 5 chunks written, 0 unchanged, 2 skipped (1 failed, 1 hidden).',
    );
    expect(JSON.parse(summaryJson(SUMMARY)).skipped[0]).toEqual({
      path: '/docs/\u001b[31mred.txt',
      reason: 'failed',
      detail: 'disk\nsaid no',
    });
  });
});
