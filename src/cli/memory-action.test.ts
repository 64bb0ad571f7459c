import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { MemoryResult } from '../core/index.js';
import { formatRelevance, relativeRelevance } from '../core/index.js';
import type { CliIo } from './cli-io.js';
import { formatResults, resultJson } from './memory-action.js';

function io(tty: boolean): CliIo {
  const stream = { write: () => undefined, isTTY: tty, columns: 100 };
  return {
    stdout: stream,
    stderr: stream,
    stdin: new PassThrough(),
    env: {},
    cwd: '/',
    signal: new AbortController().signal,
  };
}

function result(score: number, source: string, content = 'Some text.'): MemoryResult {
  return { id: source, score, source, content, metadata: {} };
}

/** BM25 scores as a small collection gives them. */
const TINY = [result(0.00000285, '/docs/a.md'), result(0.00000182, '/docs/b.md')];

describe('memory search relevance', () => {
  it('shows tiny BM25 scores as a percentage of the best result', () => {
    expect(formatResults(TINY, io(false))).toBe(
      '1. 100%  /docs/a.md\n   Some text.\n2.  64%  /docs/b.md\n   Some text.\n',
    );
  });

  it('keeps the raw BM25 score in JSON, next to the relative relevance', () => {
    expect(resultJson(TINY[1] as MemoryResult, 0.00000285)).toMatchObject({
      score: 0.00000182,
      relevance: 0.6386,
      source: '/docs/b.md',
    });
  });

  it('says <1% for a barely matching result and copes with odd scores', () => {
    expect(formatRelevance(relativeRelevance(0.001, 7.2))).toBe('<1%');
    expect(formatRelevance(relativeRelevance(7.2, 7.2))).toBe('100%');
    expect(relativeRelevance(0, 0)).toBe(1);
    expect(relativeRelevance(Number.NaN, 3)).toBe(0);
    expect(relativeRelevance(3, Number.POSITIVE_INFINITY)).toBe(0);
  });

  it('shows what the files hold escape-safe on a terminal', () => {
    const hostile = [result(1, '/docs/\u001b]0;pwned\u0007.md', 'Hello \u001b[2J\u202eworld')];
    const shown = formatResults(hostile, io(true));
    expect(shown).not.toContain('\u001b');
    expect(shown).not.toContain('\u202e');
    expect(shown).toContain('^[]0;pwned');
    expect(shown).toContain('Hello ^[[2J');
  });
});
