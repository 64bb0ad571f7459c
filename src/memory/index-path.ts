import type { Dirent, Stats } from 'node:fs';
import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { describeError, JarvisError } from '../core/index.js';
import { type ChunkOptions, chunkText, resolveChunkSizes, textKindOf } from './chunking.js';

/** `node:crypto`, loaded on first use: importing the package should not pay for it. */
let cryptoModule: typeof import('node:crypto') | undefined;
function nodeCrypto(): typeof import('node:crypto') {
  cryptoModule ??= createRequire(import.meta.url)('node:crypto') as typeof import('node:crypto');
  return cryptoModule;
}

/** What `indexPath` needs from a memory: per-source metadata and an atomic replace (`SQLiteMemory` has both). */
export interface IndexTarget {
  /** The metadata of every document stored with `source`, in the order they were stored. */
  sourceMetadata(source: string): Promise<readonly Readonly<Record<string, unknown>>[]>;
  /** Replaces everything stored with `source` by `documents` in one transaction. */
  replaceSource(
    source: string,
    documents: readonly {
      readonly content: string;
      readonly metadata?: Readonly<Record<string, unknown>>;
    }[],
  ): Promise<readonly string[]>;
}

/** Largest file indexed when `maxFileBytes` is not given (10 MiB). */
export const DEFAULT_MAX_FILE_BYTES = 10 * 1024 * 1024;

/** Why a path was not indexed. */
export type SkipReason =
  | 'hidden'
  | 'ignored_directory'
  | 'binary'
  | 'too_large'
  | 'empty'
  | 'symlink_loop'
  | 'duplicate'
  | 'not_a_regular_file'
  | 'unreadable'
  | 'failed';

/** A path that was not indexed, and why. */
export interface SkippedPath {
  readonly path: string;
  readonly reason: SkipReason;
  /** The underlying error, for `unreadable` and `failed` (a file that could not be chunked or stored). */
  readonly detail?: string;
}

/** What one file came to, reported after each file. */
export interface IndexProgress {
  readonly path: string;
  readonly status: 'indexed' | 'unchanged' | 'skipped';
  /** Chunks written for this file (0 when unchanged or skipped). */
  readonly chunks: number;
  /** Files looked at so far, skipped ones included. */
  readonly filesSeen: number;
}

/** Options of `indexPath`. */
export interface IndexPathOptions extends Omit<ChunkOptions, 'kind'> {
  /** Stops the walk between files; the promise then rejects with the signal's reason. */
  readonly signal?: AbortSignal;
  readonly onProgress?: (progress: IndexProgress) => void;
  /** Larger files are skipped as `too_large` (default 10 MiB). */
  readonly maxFileBytes?: number;
}

/** The outcome of `indexPath`. */
export interface IndexSummary {
  /** Text files indexed or found unchanged. */
  readonly files: number;
  /** Chunks written in this run. */
  readonly chunks: number;
  /** Files whose content and chunk sizes had not changed since they were indexed (nothing rewritten). */
  readonly unchanged: number;
  readonly skipped: readonly SkippedPath[];
}

type WalkEntry =
  | { readonly type: 'file'; readonly path: string; readonly stats: Stats }
  | ({ readonly type: 'skip' } & SkippedPath);

interface WalkState {
  readonly seenDirectories: Set<string>;
  readonly seenFiles: Set<string>;
  /** Symbolic links met so far, walked after the real entries. */
  readonly deferredLinks: string[];
}

interface IndexSettings {
  readonly chunkSize: number;
  readonly chunkOverlap: number;
  readonly maxFileBytes: number;
}

/**
 * Indexes a file or a folder tree into `memory`: text files are chunked (Markdown and code at their natural
 * boundaries) and stored with `source` = the absolute file path; a file whose content is unchanged is left as
 * it is, a changed one has its old chunks replaced in one transaction. Hidden entries, `node_modules`, binary and
 * oversize files and symlink loops are skipped and listed, and so is a file whose indexing fails (`failed`,
 * with the error): the rest of the folder is still indexed.
 */
export async function indexPath(
  memory: IndexTarget,
  path: string,
  options: IndexPathOptions = {},
): Promise<IndexSummary> {
  const settings = resolveSettings(options);
  const root = resolve(path);
  await requireExisting(root);
  options.signal?.throwIfAborted();
  const tally = new IndexTally();
  const state: WalkState = {
    seenDirectories: new Set(),
    seenFiles: new Set(),
    deferredLinks: [],
  };
  for await (const entry of walkRoot(root, state)) {
    options.signal?.throwIfAborted();
    const outcome: FileOutcome =
      entry.type === 'skip'
        ? { status: 'skipped', skip: skippedPath(entry) }
        : await indexFileOrSkip(memory, entry, settings, options.signal);
    const progress = tally.add(entry.path, outcome);
    options.onProgress?.(progress);
  }
  return tally.summary();
}

/** Counts what the files came to. */
class IndexTally {
  #files = 0;
  #chunks = 0;
  #unchanged = 0;
  #seen = 0;
  readonly #skipped: SkippedPath[] = [];

  add(path: string, outcome: FileOutcome): IndexProgress {
    this.#seen += 1;
    if (outcome.status === 'skipped') {
      this.#skipped.push(outcome.skip);
      return { path, status: 'skipped', chunks: 0, filesSeen: this.#seen };
    }
    this.#files += 1;
    this.#chunks += outcome.chunks;
    if (outcome.status === 'unchanged') this.#unchanged += 1;
    return { path, status: outcome.status, chunks: outcome.chunks, filesSeen: this.#seen };
  }

  summary(): IndexSummary {
    return {
      files: this.#files,
      chunks: this.#chunks,
      unchanged: this.#unchanged,
      skipped: [...this.#skipped],
    };
  }
}

function resolveSettings(options: IndexPathOptions): IndexSettings {
  const { chunkSize, chunkOverlap } = resolveChunkSizes(options);
  const maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  if (!Number.isSafeInteger(maxFileBytes) || maxFileBytes < 1) {
    throw new JarvisError({
      code: 'invalid_argument',
      message: `maxFileBytes must be a whole number of bytes, at least 1 (got ${String(maxFileBytes)})`,
    });
  }
  return { chunkSize, chunkOverlap, maxFileBytes };
}

async function requireExisting(root: string): Promise<void> {
  try {
    await stat(root);
  } catch (cause) {
    throw new JarvisError({
      code: 'invalid_argument',
      message: `cannot index ${root}: ${describeError(cause)}; give an existing file or folder`,
      cause,
    });
  }
}

function skippedPath(entry: SkippedPath): SkippedPath {
  const { path, reason, detail } = entry;
  return detail === undefined ? { path, reason } : { path, reason, detail };
}

// ---- walking -------------------------------------------------------------------------------------------------
// Real entries are walked first and symbolic links afterwards, so that a file or folder reachable both ways is
// indexed under its own path and the link is reported as a duplicate (or a loop, when it points at an ancestor).

async function* walkRoot(root: string, state: WalkState): AsyncGenerator<WalkEntry> {
  const found = await statEntry(root);
  if ('reason' in found) {
    yield { type: 'skip', ...found };
    return;
  }
  yield* visit(root, found.stats, state);
  // Links found while walking links are appended, so this also walks them.
  for (let index = 0; index < state.deferredLinks.length; index += 1) {
    const link = state.deferredLinks[index];
    if (link !== undefined) yield* walkLink(link, state);
  }
}

async function* visit(path: string, stats: Stats, state: WalkState): AsyncGenerator<WalkEntry> {
  if (!stats.isDirectory()) {
    yield classifyFile(path, stats, state);
    return;
  }
  const key = identityOf(stats);
  if (state.seenDirectories.has(key)) {
    yield { type: 'skip', path, reason: 'duplicate' };
    return;
  }
  state.seenDirectories.add(key);
  yield* walkEntries(path, state);
}

async function* walkEntries(directory: string, state: WalkState): AsyncGenerator<WalkEntry> {
  let entries: Dirent[];
  try {
    entries = await readdir(directory, { withFileTypes: true });
  } catch (error) {
    yield { type: 'skip', path: directory, reason: 'unreadable', detail: describeError(error) };
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const path = join(directory, entry.name);
    if (entry.name.startsWith('.')) yield { type: 'skip', path, reason: 'hidden' };
    else if (entry.isSymbolicLink()) state.deferredLinks.push(path);
    else if (entry.isDirectory() && entry.name === 'node_modules')
      yield { type: 'skip', path, reason: 'ignored_directory' };
    else yield* visitEntry(path, state);
  }
}

async function* visitEntry(path: string, state: WalkState): AsyncGenerator<WalkEntry> {
  const found = await statEntry(path);
  if ('reason' in found) yield { type: 'skip', ...found };
  else yield* visit(path, found.stats, state);
}

async function* walkLink(link: string, state: WalkState): AsyncGenerator<WalkEntry> {
  const found = await statEntry(link);
  if ('reason' in found) {
    yield { type: 'skip', ...found };
    return;
  }
  const { stats } = found;
  if (stats.isDirectory() && basename(link) === 'node_modules') {
    yield { type: 'skip', path: link, reason: 'ignored_directory' };
  } else if (stats.isDirectory() && state.seenDirectories.has(identityOf(stats))) {
    const reason = (await pointsAtAncestor(link)) ? 'symlink_loop' : 'duplicate';
    yield { type: 'skip', path: link, reason };
  } else {
    yield* visit(link, stats, state);
  }
}

/** True when a directory link points at a folder that contains the link itself. */
async function pointsAtAncestor(link: string): Promise<boolean> {
  try {
    const target = await realpath(link);
    const parent = await realpath(dirname(link));
    return parent === target || parent.startsWith(target.endsWith(sep) ? target : target + sep);
  } catch {
    return false;
  }
}

/** Follows symlinks; a link that points at itself (ELOOP) is a loop, a dangling one is unreadable. */
async function statEntry(path: string): Promise<{ readonly stats: Stats } | SkippedPath> {
  try {
    return { stats: await stat(path) };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') return { path, reason: 'symlink_loop' };
    return { path, reason: 'unreadable', detail: describeError(error) };
  }
}

function classifyFile(path: string, stats: Stats, state: WalkState): WalkEntry {
  if (!stats.isFile()) return { type: 'skip', path, reason: 'not_a_regular_file' };
  const key = identityOf(stats);
  if (state.seenFiles.has(key)) return { type: 'skip', path, reason: 'duplicate' };
  state.seenFiles.add(key);
  return { type: 'file', path, stats };
}

function identityOf(stats: Stats): string {
  return `${stats.dev}:${stats.ino}`;
}

// ---- one file ------------------------------------------------------------------------------------------------

type FileOutcome =
  | { readonly status: 'indexed' | 'unchanged'; readonly chunks: number }
  | { readonly status: 'skipped'; readonly skip: SkippedPath };

/**
 * Indexes one file; a file that fails (its chunking or storing throws) is skipped as `failed` with the error,
 * so one bad file never stops the rest of the folder. Cancellation still stops the walk.
 */
async function indexFileOrSkip(
  memory: IndexTarget,
  file: { readonly path: string; readonly stats: Stats },
  settings: IndexSettings,
  signal: AbortSignal | undefined,
): Promise<FileOutcome> {
  try {
    return await indexFile(memory, file, settings);
  } catch (error) {
    signal?.throwIfAborted();
    return {
      status: 'skipped',
      skip: { path: file.path, reason: 'failed', detail: describeError(error) },
    };
  }
}

async function indexFile(
  memory: IndexTarget,
  file: { readonly path: string; readonly stats: Stats },
  settings: IndexSettings,
): Promise<FileOutcome> {
  const { path } = file;
  const read =
    file.stats.size > settings.maxFileBytes
      ? ({ path, reason: 'too_large' } as const)
      : await readText(path, settings.maxFileBytes);
  const stored = await memory.sourceMetadata(path);
  if ('reason' in read) {
    // A file that can no longer be indexed must not leave its old chunks behind.
    if (stored.length > 0 && read.reason !== 'unreadable') await memory.replaceSource(path, []);
    return { status: 'skipped', skip: read };
  }
  if (isUpToDate(stored, read.contentHash, settings)) return { status: 'unchanged', chunks: 0 };
  const chunks = chunkText(read.text, { ...settings, kind: textKindOf(path) });
  await memory.replaceSource(path, toDocuments(path, chunks, read.contentHash, settings));
  if (chunks.length === 0) return { status: 'skipped', skip: { path, reason: 'empty' } };
  return { status: 'indexed', chunks: chunks.length };
}

function toDocuments(
  path: string,
  chunks: readonly string[],
  contentHash: string,
  settings: IndexSettings,
): { readonly content: string; readonly metadata: Readonly<Record<string, unknown>> }[] {
  return chunks.map((content, index) => ({
    content,
    metadata: {
      path,
      chunk_index: index,
      chunk_count: chunks.length,
      content_hash: contentHash,
      chunk_size: settings.chunkSize,
      chunk_overlap: settings.chunkOverlap,
    },
  }));
}

/** Reads a file as UTF-8 text; NUL bytes or invalid UTF-8 mean binary. */
async function readText(
  path: string,
  maxFileBytes: number,
): Promise<{ readonly contentHash: string; readonly text: string } | SkippedPath> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    return { path, reason: 'unreadable', detail: describeError(error) };
  }
  if (bytes.length > maxFileBytes) return { path, reason: 'too_large' };
  if (bytes.includes(0)) return { path, reason: 'binary' };
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return { contentHash: nodeCrypto().createHash('sha256').update(bytes).digest('hex'), text };
  } catch {
    return { path, reason: 'binary' };
  }
}

/** True when every stored chunk of the file came from the same content and chunk sizes, and none is missing. */
function isUpToDate(
  stored: readonly Readonly<Record<string, unknown>>[],
  contentHash: string,
  settings: IndexSettings,
): boolean {
  if (stored.length === 0) return false;
  return stored.every(
    (metadata) =>
      metadata.content_hash === contentHash &&
      metadata.chunk_count === stored.length &&
      metadata.chunk_size === settings.chunkSize &&
      metadata.chunk_overlap === settings.chunkOverlap,
  );
}
