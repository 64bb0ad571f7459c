import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { anyOf, ftsString, MAX_QUERY_TERMS, queryTerms, STOPWORDS } from './fts-query.js';

/** FTS5's own tokens for a text (porter unicode61, as the memory index uses). */
const db = new Database(':memory:');
db.exec(`CREATE VIRTUAL TABLE t USING fts5(x, tokenize='porter unicode61');
  CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance');`);
afterAll(() => db.close());

function ftsTokens(text: string): string[] {
  db.prepare('DELETE FROM t').run();
  db.prepare('INSERT INTO t (x) VALUES (?)').run(text);
  return db.prepare('SELECT term FROM v ORDER BY offset').pluck().all() as string[];
}

describe('queryTerms', () => {
  it('reads FTS5 syntax and punctuation as separators, never as operators', () => {
    expect(queryTerms('"NEAR(alpha beta, 2)" AND gamma* ^delta col:eps (zeta')).toEqual([
      'NEAR',
      'alpha',
      'beta',
      '2',
      'gamma',
      'delta',
      'col',
      'eps',
      'zeta',
    ]);
    expect(queryTerms('foo\u0000bar')).toEqual(['foo', 'bar']);
    expect(queryTerms("'; DROP TABLE memory_documents; --")).toEqual([
      'DROP',
      'TABLE',
      'memory',
      'documents',
    ]);
  });

  it('keeps AND, OR and NOT as ordinary words', () => {
    expect(queryTerms('AND OR NOT')).toEqual(['AND', 'OR', 'NOT']);
    expect(queryTerms('NEAR cats')).toEqual(['NEAR', 'cats']);
  });

  it('gives nothing for empty, blank or punctuation-only queries', () => {
    for (const query of ['', '   \n\t', '"*^:()', '\u0000\u0000', '-- ; ,'])
      expect(queryTerms(query)).toEqual([]);
  });

  it('drops repeated words ignoring case, keeping the first spelling', () => {
    expect(queryTerms('Memory memory MEMORY index')).toEqual(['Memory', 'index']);
  });

  it('drops common English words unless nothing else is left', () => {
    expect(queryTerms('what is the scheduler for')).toEqual(['scheduler']);
    expect(queryTerms('to be or not to be')).toEqual(['to', 'be', 'or', 'not']);
  });

  it(`searches at most ${MAX_QUERY_TERMS} distinct words of a very long query`, () => {
    const query = Array.from({ length: 500 }, (_, index) => `word${index}`).join(' ');
    const terms = queryTerms(query);
    expect(terms).toHaveLength(MAX_QUERY_TERMS);
    expect(terms[0]).toBe('word0');
  });

  it('splits text the way the FTS5 tokenizer does', () => {
    const samples = [
      'café cafe\u0301 naïve résumé',
      '日本語のテキスト and 中文',
      'snake_case foo-bar a.b',
      'emoji😀word ½ ² ٣',
      'soft\u00adhyphen zero\u200bwidth',
      'Über STRASSE İstanbul',
    ];
    for (const sample of samples) {
      const fromTerms = new Set(queryTerms(sample).flatMap((term) => ftsTokens(term)));
      const expected = new Set(ftsTokens(sample).filter((token) => !STOPWORDS.has(token)));
      expect(fromTerms).toEqual(expected);
    }
  });
});

describe('ftsString and anyOf', () => {
  it('quote every word as an FTS5 string', () => {
    expect(ftsString('a"b')).toBe('"a""b"');
    expect(anyOf(['NEAR', 'x'])).toBe('"NEAR" OR "x"');
  });
});
