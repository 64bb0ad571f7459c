// SQLite memory benchmark: retrieval latency (p50/p95) at 10,000 and 100,000 stored chunks and indexing
// throughput, each next to a baseline measured in the same run (a linear scan in JS, a plain SQLite insert);
// then PostgreSQL (issue 19) with the same 100,000 chunks and queries, timed interleaved with SQLite.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import type { indexPath, queryTerms, SQLiteMemory } from '../src/memory/index.js';
import type * as PostgresMemorySchema from '../src/memory/postgres-memory-schema.js';
import { library } from './library.js';
import { openPostgresMemory } from './memory-postgres.js';

/** The parts of the library this benchmark uses. */
export interface MemoryLibrary {
  readonly SQLiteMemory: typeof SQLiteMemory;
  readonly indexPath: typeof indexPath;
}

/** Options of `memoryBenchSuite`. */
export interface MemoryBenchOptions {
  /** Fewer queries per case (the corpus sizes stay the same). */
  readonly quick?: boolean;
  /** The implementation to measure; the built package (`dist/`) by default. */
  readonly implementation?: MemoryLibrary;
  /** Leave out the PostgreSQL side. */
  readonly skipPostgres?: boolean;
}

/** One latency case: percentiles over individually timed operations. */
export interface LatencyRow {
  readonly name: string;
  readonly baseline?: string;
  readonly p50Ms: number;
  readonly p95Ms: number;
  readonly samples: number;
}

/** One throughput case. */
export interface ThroughputRow {
  readonly name: string;
  readonly baseline?: string;
  readonly chunksPerSecond: number;
}

/** The prepared benchmark: `run()` measures and returns the report text, `close()` removes its files. */
export interface MemoryBench {
  readonly run: () => Promise<string>;
  readonly close: () => Promise<void>;
}

const SMALL = 10_000;
const LARGE = 100_000;
const TOP_K = 5;
const GOAL_P95_MS = 10;
const BATCH = 1_000;
const REPETITIONS = 3;

// ---- percentiles and formatting (the harness reports medians only) -------------------------------------------

/** The nearest-rank percentile (`p` from 0 to 100) of some values. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1] ?? Number.NaN;
}

/**
 * Times `operation` on every input (`repetitions` times each, keeping the fastest, so that a burst of work from
 * another process does not count as latency) and returns p50 and p95 in milliseconds.
 */
export async function measureLatency<T>(options: {
  readonly name: string;
  readonly inputs: readonly T[];
  readonly operation: (input: T) => unknown;
  readonly repetitions?: number;
  readonly baseline?: string;
}): Promise<LatencyRow> {
  const times: number[] = [];
  for (const input of options.inputs) {
    let fastest = Number.POSITIVE_INFINITY;
    for (let run = 0; run < (options.repetitions ?? 1); run += 1) {
      const started = performance.now();
      const value = options.operation(input);
      if (value instanceof Promise) await value;
      fastest = Math.min(fastest, performance.now() - started);
    }
    times.push(fastest);
  }
  const row = {
    name: options.name,
    p50Ms: percentile(times, 50),
    p95Ms: percentile(times, 95),
    samples: times.length,
  };
  return options.baseline === undefined ? row : { ...row, baseline: options.baseline };
}

/** One operation of `measureInterleaved`. */
interface NamedOperation<T> {
  readonly name: string;
  readonly baseline?: string;
  readonly operation: (input: T) => unknown;
}

/**
 * Like `measureLatency` for several operations at once: on each input every operation is timed in turn (the
 * order alternating from one input to the next), so load from other processes hits them alike.
 */
export async function measureInterleaved<T>(
  operations: readonly NamedOperation<T>[],
  inputs: readonly T[],
  repetitions: number,
): Promise<LatencyRow[]> {
  const times = operations.map((): number[] => []);
  for (const [index, input] of inputs.entries()) {
    const order = operations.map((_, i) => (index % 2 === 0 ? i : operations.length - 1 - i));
    for (const which of order) {
      let fastest = Number.POSITIVE_INFINITY;
      for (let run = 0; run < repetitions; run += 1) {
        const started = performance.now();
        const value = operations[which]?.operation(input);
        if (value instanceof Promise) await value;
        fastest = Math.min(fastest, performance.now() - started);
      }
      times[which]?.push(fastest);
    }
  }
  return operations.map((operation, i) => {
    const values = times[i] ?? [];
    const row = {
      name: operation.name,
      p50Ms: percentile(values, 50),
      p95Ms: percentile(values, 95),
      samples: values.length,
    };
    return operation.baseline === undefined ? row : { ...row, baseline: operation.baseline };
  });
}

function formatMs(ms: number): string {
  return ms >= 100
    ? `${ms.toFixed(0)} ms`
    : ms >= 1
      ? `${ms.toFixed(2)} ms`
      : `${(ms * 1000).toFixed(0)} µs`;
}

function table(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((width) => '-'.repeat(width)).join('  '), ...rows.map(line)];
}

/** Renders latency rows (p50, p95, p95 ratio to the baseline) and throughput rows as text tables. */
export function formatMemoryReport(
  latency: readonly LatencyRow[],
  throughput: readonly ThroughputRow[],
  notes: readonly string[],
): string {
  const byName = new Map(latency.map((row) => [row.name, row]));
  const latencyRows = latency.map((row) => {
    const base = row.baseline === undefined ? undefined : byName.get(row.baseline);
    const ratio =
      base === undefined ? 'baseline' : `${(row.p95Ms / base.p95Ms).toFixed(3)}x ${base.name}`;
    return [row.name, formatMs(row.p50Ms), formatMs(row.p95Ms), String(row.samples), ratio];
  });
  const rates = new Map(throughput.map((row) => [row.name, row.chunksPerSecond]));
  const throughputRows = throughput.map((row) => {
    const base = row.baseline === undefined ? undefined : rates.get(row.baseline);
    const ratio =
      base === undefined
        ? 'baseline'
        : `${(row.chunksPerSecond / base).toFixed(3)}x ${row.baseline}`;
    return [row.name, `${Math.round(row.chunksPerSecond).toLocaleString('en-US')} chunks/s`, ratio];
  });
  return [
    '## Memory: SQLite FTS5 (and PostgreSQL tsvector) retrieval latency and indexing throughput',
    ...table(['case', 'p50', 'p95', 'queries', 'p95 ratio'], latencyRows),
    '',
    ...table(['indexing case', 'throughput', 'ratio'], throughputRows),
    ...notes,
  ].join('\n');
}

// ---- a realistic generated corpus ------------------------------------------------------------------------------

/** A small seeded PRNG (mulberry32), so every run measures the same text and queries. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

// English function words take the top ranks, as they do in real text; the rest are made-up content words.
const FUNCTION_WORDS = (
  'the of and to a in is that for it as with was on be by this are from or at an not have which but has ' +
  'were can all their its more they we he she you his her there been would will if about when what into'
).split(' ');
const SYLLABLES =
  'ka lo mi ren tor sa vi den po lu ex ar in gra fel son tek nor bel qui ma te ri on es'.split(' ');
const VOCABULARY_SIZE = 50_000;

function vocabulary(random: () => number): string[] {
  const words = [...FUNCTION_WORDS];
  const seen = new Set(words);
  while (words.length < VOCABULARY_SIZE) {
    let word = '';
    const length = 2 + Math.floor(random() * 3);
    for (let index = 0; index < length; index += 1)
      word += SYLLABLES[Math.floor(random() * SYLLABLES.length)];
    if (!seen.has(word)) {
      seen.add(word);
      words.push(word);
    }
  }
  return words;
}

/** A sampler of word ranks with Zipf's law (s = 1), through an inverse-CDF lookup table. */
function zipfSampler(size: number, random: () => number): () => number {
  const slots = 1 << 20;
  const table = new Uint32Array(slots);
  let total = 0;
  for (let rank = 1; rank <= size; rank += 1) total += 1 / rank;
  let cumulative = 0;
  let rank = 0;
  for (let slot = 0; slot < slots; slot += 1) {
    const target = ((slot + 0.5) / slots) * total;
    while (cumulative + 1 / (rank + 1) < target && rank < size - 1) {
      cumulative += 1 / (rank + 1);
      rank += 1;
    }
    table[slot] = rank;
  }
  return () => table[Math.floor(random() * slots)] ?? 0;
}

/** `count` chunks of 850-1,000 characters of sentences (the default chunk size is 1,000). */
function generateChunks(count: number, seed: number): string[] {
  const random = seededRandom(seed);
  const words = vocabulary(random);
  const nextRank = zipfSampler(words.length, random);
  const chunks: string[] = [];
  for (let index = 0; index < count; index += 1) {
    let chunk = '';
    while (chunk.length < 850) {
      const length = 6 + Math.floor(random() * 14);
      const sentence: string[] = [];
      for (let word = 0; word < length; word += 1) sentence.push(words[nextRank()] ?? '');
      chunk += `${sentence.join(' ')}. `;
    }
    chunks.push(chunk.slice(0, 1_000).trim());
  }
  return chunks;
}

const TEMPLATES = [
  '{}',
  'how does the {} work',
  'what is {}',
  'notes about {} and the rest',
  '{}?',
];

/** Known-item queries: 2-4 distinct words of a random chunk, inside a plain question. */
function generateQueries(chunks: readonly string[], count: number, seed: number): string[] {
  const random = seededRandom(seed);
  const functionWords = new Set(FUNCTION_WORDS);
  return Array.from({ length: count }, () => {
    const chunk = chunks[Math.floor(random() * chunks.length)] ?? '';
    const candidates = [...new Set(chunk.match(/[a-z]+/g) ?? [])].filter(
      (word) => !functionWords.has(word),
    );
    const picked = new Set<string>();
    const wanted = Math.min(candidates.length, 2 + Math.floor(random() * 3));
    while (picked.size < wanted)
      picked.add(candidates[Math.floor(random() * candidates.length)] ?? '');
    const template = TEMPLATES[Math.floor(random() * TEMPLATES.length)] ?? '{}';
    return template.replace('{}', [...picked].join(' '));
  });
}

// ---- baselines ---------------------------------------------------------------------------------------------------

/** The baseline search: count query-word occurrences in every chunk and keep the best `TOP_K`. */
function linearScan(chunks: readonly string[], query: string): number[] {
  const terms = [...new Set(query.toLowerCase().match(/[a-z]+/g) ?? [])];
  const best: [number, number][] = [];
  chunks.forEach((chunk, index) => {
    let hits = 0;
    for (const term of terms) {
      for (let at = chunk.indexOf(term); at >= 0; at = chunk.indexOf(term, at + term.length))
        hits += 1;
    }
    if (hits === 0) return;
    if (best.length < TOP_K || hits > (best[best.length - 1]?.[1] ?? 0)) {
      best.push([index, hits]);
      best.sort((a, b) => b[1] - a[1]);
      if (best.length > TOP_K) best.pop();
    }
  });
  return best.map(([index]) => index);
}

/** The baseline insert: the same chunks into a plain SQLite table (WAL, no full-text index), in batches. */
function plainInsertRate(directory: string, chunks: readonly string[]): number {
  const db = new Database(join(directory, 'plain.db'));
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.exec(
      'CREATE TABLE chunks (id INTEGER PRIMARY KEY, content TEXT NOT NULL, source TEXT NOT NULL)',
    );
    const insert = db.prepare('INSERT INTO chunks (content, source) VALUES (?, ?)');
    const batch = db.transaction((items: readonly string[]) => {
      for (const item of items) insert.run(item, 'bench');
    });
    const started = performance.now();
    for (let start = 0; start < chunks.length; start += BATCH)
      batch(chunks.slice(start, start + BATCH));
    return (chunks.length * 1000) / (performance.now() - started);
  } finally {
    db.close();
  }
}

// ---- the cases --------------------------------------------------------------------------------------------------

async function storeRate(
  memory: Pick<SQLiteMemory, 'storeMany'>,
  chunks: readonly string[],
): Promise<number> {
  const started = performance.now();
  for (let start = 0; start < chunks.length; start += BATCH) {
    await memory.storeMany(
      chunks.slice(start, start + BATCH).map((content) => ({ content, source: 'bench' })),
    );
  }
  return (chunks.length * 1000) / (performance.now() - started);
}

/** Writes the chunks as Markdown files of 50 sections each and measures `indexPath` over the folder. */
async function indexPathRate(
  lib: MemoryLibrary,
  directory: string,
  chunks: readonly string[],
): Promise<number> {
  const folder = join(directory, 'docs');
  mkdirSync(folder);
  const perFile = 50;
  for (let start = 0; start < chunks.length; start += perFile) {
    const sections = chunks
      .slice(start, start + perFile)
      .map((text, index) => `## Part ${index}\n\n${text}\n`);
    writeFileSync(join(folder, `doc-${start / perFile}.md`), sections.join('\n'));
  }
  const memory = new lib.SQLiteMemory({ dbPath: join(directory, 'indexed.db') });
  try {
    const started = performance.now();
    const summary = await lib.indexPath(memory, folder);
    return (summary.chunks * 1000) / (performance.now() - started);
  } finally {
    await memory.close();
  }
}

function agreement(
  exact: ReadonlyMap<string, string>,
  bounded: ReadonlyMap<string, string>,
): number {
  const same = [...exact].filter(([query, ids]) => bounded.get(query) === ids).length;
  return (100 * same) / Math.max(1, exact.size);
}

/** Times every query on `target`, keeping the ids it returned per query. */
function timeQueries(
  name: string,
  target: SQLiteMemory,
  queries: readonly string[],
  ids: Map<string, string>,
): Promise<LatencyRow> {
  return measureLatency({
    name,
    inputs: queries,
    repetitions: REPETITIONS,
    operation: async (query: string) => {
      const results = await target.retrieve(query, { topK: TOP_K });
      ids.set(query, results.map((result) => result.id).join());
    },
  });
}

/** Retrieval latency of the memory (and of exact ranking on the same file, when `compareExact`). */
async function retrievalCases(
  context: RunContext,
  size: string,
  compareExact: boolean,
): Promise<{ rows: LatencyRow[]; agreementPercent: number | undefined }> {
  const { lib, dbPath, memory, queries } = context;
  for (const query of queries.slice(0, 20)) await memory.retrieve(query, { topK: TOP_K });
  const bounded = new Map<string, string>();
  const name = `retrieve top ${TOP_K}, ${size} chunks`;
  const retrieve = await timeQueries(name, memory, queries, bounded);
  if (!compareExact) return { rows: [retrieve], agreementPercent: undefined };
  const exactMemory = new lib.SQLiteMemory({ dbPath, maxExactPostings: Number.POSITIVE_INFINITY });
  try {
    const exact = new Map<string, string>();
    const exactName = `  same, exact BM25 ranking, ${size} chunks`;
    const exactRow = await timeQueries(exactName, exactMemory, queries, exact);
    return { rows: [retrieve, exactRow], agreementPercent: agreement(exact, bounded) };
  } finally {
    await exactMemory.close();
  }
}

function scanCase(
  chunks: readonly string[],
  queries: readonly string[],
  size: string,
): Promise<LatencyRow> {
  return measureLatency({
    name: `linear scan in JS, ${size} chunks`,
    inputs: queries,
    operation: (query: string) => linearScan(chunks, query),
  });
}

function resolveLibrary(override: MemoryLibrary | undefined): MemoryLibrary {
  const candidate = override ?? (library as unknown as Partial<MemoryLibrary>);
  if (typeof candidate.SQLiteMemory !== 'function' || typeof candidate.indexPath !== 'function') {
    throw new Error(
      'the built package does not export SQLiteMemory and indexPath: export them from src/index.ts and run npm run build',
    );
  }
  return candidate as MemoryLibrary;
}

/** Generates the corpus and queries (in a temporary folder) and returns the benchmark, ready to `run()`. */
export async function memoryBenchSuite(options: MemoryBenchOptions = {}): Promise<MemoryBench> {
  const lib = resolveLibrary(options.implementation);
  const quick = options.quick === true;
  const directory = mkdtempSync(join(tmpdir(), 'openjarvis-memory-bench-'));
  const chunks = generateChunks(LARGE, 20_240_601);
  const queries = generateQueries(chunks.slice(0, SMALL), quick ? 60 : 150, 7);
  const postgres = options.skipPostgres !== true;
  const run = async (): Promise<string> => {
    const dbPath = join(directory, 'memory.db');
    const memory = new lib.SQLiteMemory({ dbPath });
    try {
      return await measureAll({ lib, directory, dbPath, memory, chunks, queries, quick, postgres });
    } finally {
      await memory.close();
    }
  };
  const close = async (): Promise<void> => rmSync(directory, { recursive: true, force: true });
  return { run, close };
}

interface RunContext {
  readonly lib: MemoryLibrary;
  readonly directory: string;
  readonly dbPath: string;
  readonly memory: SQLiteMemory;
  readonly chunks: readonly string[];
  readonly queries: readonly string[];
  readonly quick: boolean;
  readonly postgres: boolean;
}

/** What the PostgreSQL side adds to the report. */
interface PostgresPart {
  readonly latency: readonly LatencyRow[];
  readonly throughput: readonly ThroughputRow[];
  readonly notes: readonly string[];
}

const SQLITE_INTERLEAVED = `SQLite retrieve top ${TOP_K}, 100,000 chunks (interleaved with PostgreSQL)`;

/**
 * The same 100,000 chunks stored in PostgresMemory (timed), then every query on both backends, interleaved;
 * and the plan of the slowest PostgreSQL query.
 */
async function postgresCases(context: RunContext, plain: string): Promise<PostgresPart> {
  if (!context.postgres) return { latency: [], throughput: [], notes: [] };
  const side = await openPostgresMemory();
  if ('skipped' in side)
    return { latency: [], throughput: [], notes: [`PostgreSQL side ${side.skipped}`] };
  try {
    const rate = await storeRate(side.memory, context.chunks);
    await side.query('VACUUM ANALYZE jarvis_memory_documents', []);
    const { memory, queries } = context;
    for (const query of queries.slice(0, 20)) await side.memory.retrieve(query, { topK: TOP_K });
    const retrieve = (target: Pick<SQLiteMemory, 'retrieve'>) => (query: string) =>
      target.retrieve(query, { topK: TOP_K });
    const latency = await measureInterleaved(
      [
        { name: SQLITE_INTERLEAVED, operation: retrieve(memory) },
        {
          name: `PostgreSQL retrieve top ${TOP_K}, 100,000 chunks`,
          baseline: SQLITE_INTERLEAVED,
          operation: retrieve(side.memory),
        },
      ],
      queries,
      REPETITIONS,
    );
    const notes = await slowestPlan(side, queries);
    const name = 'PostgresMemory storeMany, empty -> 100,000 chunks (fsync on)';
    return { latency, throughput: [{ name, baseline: plain, chunksPerSecond: rate }], notes };
  } finally {
    await side.close();
  }
}

/** EXPLAIN ANALYZE of the query PostgreSQL answers slowest: where its time goes. */
async function slowestPlan(
  side: { query: (sql: string, params: readonly unknown[]) => Promise<unknown[]> },
  queries: readonly string[],
): Promise<string[]> {
  const dist = (path: string) => new URL(`../dist/memory/${path}`, import.meta.url).href;
  const terms = ((await import(dist('index.js'))) as { queryTerms: typeof queryTerms }).queryTerms;
  // PostgresMemory.retrieve's statement and parameters, from the build measured.
  const { SEARCH_SQL, searchParams } = (await import(
    dist('postgres-memory-schema.js')
  )) as typeof PostgresMemorySchema;
  let slowest = { ms: -1, params: [] as unknown[], words: '' };
  for (const query of queries) {
    const words = terms(query);
    if (words.length === 0) continue;
    const params = searchParams(words, TOP_K);
    const started = performance.now();
    await side.query(SEARCH_SQL, params);
    const ms = performance.now() - started;
    if (ms > slowest.ms) slowest = { ms, params, words: words.join(' ') };
  }
  const plan = (await side.query(`EXPLAIN (ANALYZE, BUFFERS) ${SEARCH_SQL}`, slowest.params)) as {
    'QUERY PLAN': string;
  }[];
  return [
    `PostgreSQL's slowest query (${formatMs(slowest.ms)}), words ${JSON.stringify(slowest.words)}:`,
    ...plan.map((row) => `  ${row['QUERY PLAN']}`),
  ];
}

async function measureAll(context: RunContext): Promise<string> {
  const { lib, directory, memory, chunks, queries, quick } = context;
  const small = chunks.slice(0, SMALL);
  const plainRate = plainInsertRate(directory, small);
  const smallRate = await storeRate(memory, small);
  const smallRetrieval = await retrievalCases(context, '10,000', false);
  const smallScan = await scanCase(small, queries.slice(0, quick ? 5 : 15), '10,000');
  const largeRate = await storeRate(memory, chunks.slice(SMALL));
  const largeRetrieval = await retrievalCases(context, '100,000', true);
  const largeScan = await scanCase(chunks, queries.slice(0, quick ? 3 : 6), '100,000');
  const fileRate = await indexPathRate(lib, directory, chunks.slice(0, 2_500));
  const plain = 'plain SQLite insert (no FTS)';
  const postgres = await postgresCases(context, plain);
  const against = (rows: readonly LatencyRow[], scan: LatencyRow) =>
    rows.map((row) => ({ ...row, baseline: scan.name }));
  const largeP95 = largeRetrieval.rows[0]?.p95Ms ?? Number.NaN;
  return formatMemoryReport(
    [
      ...against(smallRetrieval.rows, smallScan),
      smallScan,
      ...against(largeRetrieval.rows, largeScan),
      largeScan,
      ...postgres.latency,
    ],
    [
      { name: plain, chunksPerSecond: plainRate },
      { name: 'storeMany, empty -> 10,000 chunks', baseline: plain, chunksPerSecond: smallRate },
      { name: 'storeMany, 10,000 -> 100,000 chunks', baseline: plain, chunksPerSecond: largeRate },
      {
        name: 'indexPath, 50 Markdown files (read, chunk, hash, store)',
        baseline: plain,
        chunksPerSecond: fileRate,
      },
      ...postgres.throughput,
    ],
    [
      `retrieval: known-item queries of 2-4 words; each timed ${REPETITIONS} times, the fastest kept (filters out other processes)`,
      `bounded ranking returned exactly the exact-BM25 top ${TOP_K} for ${largeRetrieval.agreementPercent?.toFixed(1)}% of queries at 100,000 chunks`,
      `goal: retrieval p95 under ${GOAL_P95_MS} ms at 100,000 chunks: ${largeP95 < GOAL_P95_MS ? 'met' : 'NOT met'} (${formatMs(largeP95)})`,
      ...postgres.notes,
    ],
  );
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const bench = await memoryBenchSuite({ quick: process.argv.includes('--quick') });
  try {
    console.log(await bench.run());
  } finally {
    await bench.close();
  }
}
