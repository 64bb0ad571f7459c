import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type * as NodeLlamaCpp from 'node-llama-cpp';
import { describeError } from '../../core/index.js';
import { loadNodeLlamaCpp } from '../embedded/node-llama-cpp-loader.js';

/**
 * One `*.gguf` file of the models folder and what its GGUF metadata says. Strings are the file's own (raw,
 * untrusted: make them terminal-safe before printing); numbers are validated, absent when missing or absurd.
 */
export interface LocalModel {
  /** The file's name in the models folder. */
  readonly fileName: string;
  /** The file's full path. */
  readonly path: string;
  /** The file's size in bytes. */
  readonly sizeBytes: number;
  /** `general.name`. */
  readonly name?: string;
  /** `general.architecture`, e.g. `llama`, `qwen3`. */
  readonly architecture?: string;
  /** The file type as llama.cpp names it (`Q4_K_M`, `Q8_0`, `F32`); else a quantization tag in the file name. */
  readonly quantization?: string;
  /** `<architecture>.context_length`: the context the model was trained for, in tokens. */
  readonly contextLength?: number;
  /**
   * The chat wrapper node-llama-cpp resolves from the metadata alone (its type name: `chatML`, `qwen`,
   * `llama3.1`, `jinjaTemplate`, ...), `general` when nothing matches (its fallback for a loaded model). The
   * engine resolves again with the loaded tokenizer, which can in rare cases pick another equivalent wrapper.
   */
  readonly chatTemplate?: string;
  /** Whether the file carries a Jinja chat template (`tokenizer.chat_template`). */
  readonly templateInFile?: boolean;
  /** Why the metadata could not be read, or what is wrong with the file, in one line. */
  readonly problem?: string;
}

/** The parts of node-llama-cpp that reading GGUF metadata uses. */
export type GgufRuntime = Pick<
  typeof NodeLlamaCpp,
  'readGgufFileInfo' | 'resolveChatWrapper' | 'chatWrappers' | 'GgufFileType'
>;

/** Options of `listLocalModels`. */
export interface ListLocalModelsOptions {
  /** Loads node-llama-cpp (default: `import('node-llama-cpp')`); injectable for tests. */
  readonly loadRuntime?: () => Promise<GgufRuntime>;
  /** Longest a file's metadata may take to read before it is reported as unreadable (default 10 s). */
  readonly readTimeoutMs?: number;
  /** Cancels the listing (the abort reason is thrown). */
  readonly signal?: AbortSignal;
}

type GgufFileInfo = Awaited<ReturnType<GgufRuntime['readGgufFileInfo']>>;

const DEFAULT_READ_TIMEOUT_MS = 10_000;
/** Context lengths are u32 in GGUF; anything outside is not a context length. */
const MAX_CONTEXT_LENGTH = 0xffff_ffff;
const RUNTIME_MISSING = 'metadata unavailable: the embedded runtime is not installed';

/**
 * Lists the `*.gguf` files directly in `modelsDir` (sorted by name; sub-folders such as `.partial/` and other
 * files ignored; a missing folder gives `[]`) with their GGUF metadata, read by node-llama-cpp (loaded lazily,
 * only when there is a file) from the file's header: no weights are loaded. A file whose metadata cannot be
 * read gets a one-line `problem`, never an exception.
 */
export async function listLocalModels(
  modelsDir: string,
  options: ListLocalModelsOptions = {},
): Promise<LocalModel[]> {
  const files = await ggufFiles(modelsDir);
  if (files.length === 0) return [];
  const runtime = await loadRuntime(options.loadRuntime ?? importNodeLlamaCpp);
  const models: LocalModel[] = [];
  for (const fileName of files) {
    options.signal?.throwIfAborted();
    models.push(await describeFile(join(modelsDir, fileName), fileName, runtime, options));
  }
  return models;
}

/** The names of the `*.gguf` files and links directly in `modelsDir`, sorted; none when it does not exist. */
async function ggufFiles(modelsDir: string): Promise<string[]> {
  try {
    const entries = await readdir(modelsDir, { withFileTypes: true });
    return entries
      .filter((entry) => (entry.isFile() || entry.isSymbolicLink()) && /\.gguf$/i.test(entry.name))
      .map((entry) => entry.name)
      .sort();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return [];
    throw error;
  }
}

async function importNodeLlamaCpp(): Promise<GgufRuntime> {
  return await loadNodeLlamaCpp();
}

/** node-llama-cpp, or the one-line reason it could not be loaded. */
async function loadRuntime(load: () => Promise<GgufRuntime>): Promise<GgufRuntime | string> {
  try {
    return await load();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') return RUNTIME_MISSING;
    return `metadata unavailable: the embedded runtime could not be loaded (${oneLine(describeError(error))})`;
  }
}

async function describeFile(
  path: string,
  fileName: string,
  runtime: GgufRuntime | string,
  options: ListLocalModelsOptions,
): Promise<LocalModel> {
  const fromName = quantizationInFileName(fileName);
  const base = { fileName, path, ...(fromName === undefined ? {} : { quantization: fromName }) };
  const size = await stat(path).catch((error: unknown) => error as NodeJS.ErrnoException);
  if (size instanceof Error)
    return {
      ...base,
      sizeBytes: 0,
      problem: `cannot read the file (${size.code ?? size.message})`,
    };
  if (!size.isFile()) return { ...base, sizeBytes: 0, problem: 'not a regular file' };
  const file = { ...base, sizeBytes: size.size };
  if (size.size === 0) return { ...file, problem: 'empty file' };
  if (typeof runtime === 'string') return { ...file, problem: runtime };
  try {
    const info = await readInfo(runtime, path, options);
    const truncated = truncationProblem(info, size.size);
    if (truncated?.headerCut === true) return { ...file, problem: truncated.problem };
    const facts = metadataFacts(runtime, info, fileName);
    return {
      ...file,
      ...facts,
      ...(truncated === undefined ? {} : { problem: truncated.problem }),
    };
  } catch (error) {
    options.signal?.throwIfAborted();
    return { ...file, problem: readProblem(error, options) };
  }
}

/** The header (metadata and tensor table, never the weights), with a time limit against hostile files. */
async function readInfo(
  runtime: GgufRuntime,
  path: string,
  options: ListLocalModelsOptions,
): Promise<GgufFileInfo> {
  const timeout = AbortSignal.timeout(options.readTimeoutMs ?? DEFAULT_READ_TIMEOUT_MS);
  const signal =
    options.signal === undefined ? timeout : AbortSignal.any([timeout, options.signal]);
  return await runtime.readGgufFileInfo(path, {
    sourceType: 'filesystem',
    readTensorInfo: true,
    spliceSplitFiles: false,
    logWarnings: false,
    signal,
  });
}

function readProblem(error: unknown, options: ListLocalModelsOptions): string {
  if ((error as Error | undefined)?.constructor?.name === 'InvalidGgufMagicError')
    return 'not a GGUF file (it does not start with the GGUF magic bytes)';
  if ((error as Error | undefined)?.name === 'TimeoutError') {
    const seconds = (options.readTimeoutMs ?? DEFAULT_READ_TIMEOUT_MS) / 1000;
    return `metadata unreadable: reading it took longer than ${seconds} s`;
  }
  return `metadata unreadable: ${oneLine(describeError(error))}`;
}

/** Name, architecture, quantization, context length and chat template from validated metadata. */
function metadataFacts(
  runtime: GgufRuntime,
  info: GgufFileInfo,
  fileName: string,
): Partial<LocalModel> {
  const general = info.metadata?.general as Record<string, unknown> | undefined;
  const quantization =
    fileTypeName(runtime, general?.file_type) ?? quantizationInFileName(fileName);
  const contextLength = validContextLength(info.architectureMetadata?.context_length);
  const template = (info.metadata?.tokenizer as Record<string, unknown> | undefined)?.chat_template;
  return {
    ...stringField('name', general?.name),
    ...stringField('architecture', general?.architecture),
    ...(quantization === undefined ? {} : { quantization }),
    ...(contextLength === undefined ? {} : { contextLength }),
    chatTemplate: chatWrapperName(runtime, info, fileName),
    templateInFile: typeof template === 'string' && template.trim() !== '',
  };
}

function stringField<K extends string>(key: K, value: unknown): { [P in K]?: string } {
  return (typeof value === 'string' && value !== '' ? { [key]: value } : {}) as {
    [P in K]?: string;
  };
}

/** llama.cpp's name of a `general.file_type` (`MOSTLY_Q4_K_M` -> `Q4_K_M`); undefined when unknown. */
function fileTypeName(runtime: GgufRuntime, fileType: unknown): string | undefined {
  const value = typeof fileType === 'bigint' ? Number(fileType) : fileType;
  if (typeof value !== 'number' || !Number.isInteger(value)) return undefined;
  const name: unknown = (runtime.GgufFileType as unknown as Record<number, unknown>)[value];
  return typeof name === 'string' ? name.replace(/^(MOSTLY|ALL)_/, '') : undefined;
}

function validContextLength(value: unknown): number | undefined {
  const length = typeof value === 'bigint' ? Number(value) : value;
  if (typeof length !== 'number' || !Number.isInteger(length)) return undefined;
  return length >= 1 && length <= MAX_CONTEXT_LENGTH ? length : undefined;
}

/** A quantization tag in a file name (`Qwen3-1.7B-Q8_0.gguf` -> `Q8_0`), the last one when several. */
export function quantizationInFileName(fileName: string): string | undefined {
  const parts = fileName.replace(/\.gguf$/i, '').split(/[-.]/);
  const tag = /^(?:I?Q\d(?:_[A-Z0-9]+)*|TQ\d_\d|MXFP4(?:_MOE)?|BF16|F16|F32)$/i;
  const found = parts.reverse().find((part) => tag.test(part));
  return found?.toUpperCase();
}

/**
 * Which chat wrapper node-llama-cpp resolves from the metadata (see `LocalModel.chatTemplate`). A Jinja
 * template it cannot parse falls back to the other wrappers, as the engine does, without logging.
 */
function chatWrapperName(runtime: GgufRuntime, info: GgufFileInfo, fileName: string): string {
  const resolve = (noJinja: boolean) =>
    runtime.resolveChatWrapper({
      fileInfo: info,
      filename: fileName,
      warningLogs: false,
      fallbackToOtherWrappersOnJinjaError: false,
      noJinja,
    });
  let wrapper: ReturnType<typeof resolve>;
  try {
    wrapper = resolve(false);
  } catch {
    try {
      wrapper = resolve(true);
    } catch {
      return 'general';
    }
  }
  if (wrapper === null) return 'general';
  const entry = Object.entries(runtime.chatWrappers).find(
    ([, type]) => wrapper.constructor === type,
  );
  return entry?.[0] ?? wrapper.wrapperName;
}

/** Bytes per block and values per block of the common ggml tensor types (ggml.h ids). */
const GGML_TYPE_LAYOUT: ReadonlyMap<number, { readonly bytes: number; readonly values: number }> =
  new Map([
    [0, { bytes: 4, values: 1 }], // F32
    [1, { bytes: 2, values: 1 }], // F16
    [2, { bytes: 18, values: 32 }], // Q4_0
    [3, { bytes: 20, values: 32 }], // Q4_1
    [6, { bytes: 22, values: 32 }], // Q5_0
    [7, { bytes: 24, values: 32 }], // Q5_1
    [8, { bytes: 34, values: 32 }], // Q8_0
    [10, { bytes: 84, values: 256 }], // Q2_K
    [11, { bytes: 110, values: 256 }], // Q3_K
    [12, { bytes: 144, values: 256 }], // Q4_K
    [13, { bytes: 176, values: 256 }], // Q5_K
    [14, { bytes: 210, values: 256 }], // Q6_K
    [30, { bytes: 2, values: 1 }], // BF16
  ]);

/**
 * Whether the file is shorter than its header says: node-llama-cpp reads past the end as zeros, so a cut file
 * parses. `headerCut` means the metadata itself was cut (and is not to be trusted). A tensor of a type not in
 * `GGML_TYPE_LAYOUT` counts as one byte long.
 */
function truncationProblem(
  info: GgufFileInfo,
  sizeBytes: number,
): { readonly problem: string; readonly headerCut: boolean } | undefined {
  const headerEnd = Math.max(info.metadataSize, info.infoEndOffset ?? 0);
  if (headerEnd > sizeBytes)
    return {
      problem: truncatedText(sizeBytes, headerEnd, 'its header ends at byte'),
      headerCut: true,
    };
  let dataEnd = 0n;
  for (const tensor of info.tensorInfo ?? []) {
    const end = BigInt(tensor.fileOffset) + tensorBytes(tensor.ggmlType, tensor.dimensions);
    if (end > dataEnd) dataEnd = end;
  }
  if (dataEnd <= BigInt(sizeBytes)) return undefined;
  return {
    problem: truncatedText(sizeBytes, dataEnd, 'its tensors end at byte'),
    headerCut: false,
  };
}

function tensorBytes(type: number, dimensions: readonly (number | bigint)[]): bigint {
  const layout = GGML_TYPE_LAYOUT.get(type);
  if (layout === undefined) return 1n;
  const values = dimensions.reduce<bigint>((product, dimension) => product * BigInt(dimension), 1n);
  const blocks = (values + BigInt(layout.values) - 1n) / BigInt(layout.values);
  return blocks * BigInt(layout.bytes);
}

function truncatedText(sizeBytes: number, neededBytes: number | bigint, what: string): string {
  return `truncated: the file has ${sizeBytes} bytes but ${what} ${neededBytes}; download it again`;
}

function oneLine(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, ' ').trim();
}
