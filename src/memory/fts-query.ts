/** Most distinct words of one query that are searched; the rest of a very long query is ignored. */
export const MAX_QUERY_TERMS = 32;

// What FTS5's unicode61 tokenizer keeps inside a token: letters, numbers, private-use characters and combining
// marks (it removes diacritics itself). Everything else (quotes, `*`, `^`, `:`, brackets, NUL, spaces) separates.
// Built from a string on first use: V8 checks the syntax of every regex literal in a file when it parses the file,
// whether or not the literal ever runs, and for Unicode property classes that check builds their character ranges
// (about 4M instructions for this one, 1% of `import('openjarvis')`); a string is only scanned.
let wordPattern: RegExp | undefined;
function wordRegExp(): RegExp {
  // biome-ignore lint/complexity/useRegexLiterals: a literal would be checked (and cost) when the package loads.
  wordPattern ??= new RegExp('[\\p{L}\\p{N}\\p{M}\\p{Co}]+', 'gu');
  return wordPattern;
}

/** Common English words left out of a query that has other words (they match almost every document). */
export const STOPWORDS: ReadonlySet<string> = new Set(
  (
    'a about above after again against all also am an and any are as at be because been before being below ' +
    'between both but by can could did do does doing down during each few for from further had has have having ' +
    'he her here hers herself him himself his how i if in into is it its itself just me more most my myself no ' +
    'nor not now of off on once only or other our ours ourselves out over own same she should so some such than ' +
    'that the their theirs them themselves then there these they this those through to too under until up very ' +
    'was we were what when where which while who whom why will with would you your yours yourself yourselves'
  ).split(' '),
);

/**
 * The words of a plain-text query (never query syntax): distinct ignoring case, in order, at most
 * `MAX_QUERY_TERMS`, and without `STOPWORDS` unless the query has nothing else.
 */
export function queryTerms(query: string): readonly string[] {
  const seen = new Set<string>();
  const words: string[] = [];
  const content: string[] = [];
  for (const match of query.matchAll(wordRegExp())) {
    const key = match[0].toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    words.push(match[0]);
    if (!STOPWORDS.has(key)) content.push(match[0]);
    // Enough words to search: the rest of a very long query is not read.
    if (content.length === MAX_QUERY_TERMS) break;
  }
  return (content.length > 0 ? content : words).slice(0, MAX_QUERY_TERMS);
}

/** One word as an FTS5 string, so that the index never reads it as an operator (`AND`, `NEAR`, `*`). */
export function ftsString(term: string): string {
  return `"${term.replaceAll('"', '""')}"`;
}

/** An FTS5 expression matching documents that contain any of `terms`. */
export function anyOf(terms: readonly string[]): string {
  return terms.map(ftsString).join(' OR ');
}
