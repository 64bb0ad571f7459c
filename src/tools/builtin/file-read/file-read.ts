import { homedir } from 'node:os';
import { resolve } from 'node:path';
import {
  createToolSpec,
  type ToolArguments,
  type ToolContext,
  type ToolResult,
  type ToolSpec,
} from '../../../core/index.js';
import { BaseTool } from '../../base-tool.js';
import { inspectFile, type ReadRefusal, readVerifiedFile } from './file-read-open.js';
import {
  expandHome,
  isInsideAny,
  pathSizeProblem,
  type ResolvedTarget,
  resolveAllowedDirs,
  resolveTarget,
} from './file-read-paths.js';
import { pseudoFileRoot } from './file-read-pseudo.js';
import { looksLikePrivateKey, secretPathReason } from './file-read-secrets.js';
import { decodeUtf8Text, limitLines } from './file-read-text.js';

/** Largest file `file_read` reads: 1 MiB (exactly 1,048,576 bytes is read, one byte more is refused). */
export const FILE_READ_MAX_BYTES = 1_048_576;

/** What a tool without allowed directories answers (the runtime never defaults to reading from `/`). */
const NO_ALLOWED_DIRS =
  'file_read has no allowed directory, so it reads nothing (the current directory is the default, but never when it is \'/\'). Configure the folders it may read: allowed_dirs = ["/path/to/folder"] under [tools.file_read] in config.toml.';

/** Options of a `FileReadTool`. */
export interface FileReadToolOptions {
  /**
   * The directories files may be read from (`~` expanded, resolved through symbolic links once); required.
   * An empty list reads nothing. `/proc`, `/sys` and `/dev` are never read, even below an allowed directory.
   */
  readonly allowedDirs: readonly string[];
  /**
   * Read well-known secret files (`.env*`, `id_*` and `*.pem` keys, `.ssh/`, `.aws/`, `.netrc`,
   * `.kube/config`, `.docker/config.json`, `secrets.*`, files holding a private key) too; off by default
   * (config: `[tools.file_read] allow_secret_files`).
   */
  readonly allowSecrets?: boolean;
  /** What `~` expands to; defaults to the user's home directory. */
  readonly homeDir?: string;
  /** What relative paths are resolved against; defaults to the process's current directory. */
  readonly baseDir?: string;
}

interface ReadRequest {
  /** The path as the model gave it; messages name it so, never the resolved path. */
  readonly path: string;
  readonly maxLines: number | undefined;
}

/**
 * Reads a UTF-8 text file of at most 1 MiB from the allowed directories. Containment is checked on real
 * paths before anything about the file is revealed, the opened descriptor is verified to be the checked
 * regular file, and well-known secret files are refused unless `allowSecrets` is set.
 */
export class FileReadTool extends BaseTool {
  readonly toolId = 'file_read';
  readonly spec: ToolSpec = createToolSpec({
    name: 'file_read',
    description: 'Read the contents of a file. Returns the text content.',
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'Path to the file to read.' },
        max_lines: {
          type: 'integer',
          minimum: 1,
          description: 'Max lines to return (default: all).',
        },
      },
      required: ['path'],
    },
    category: 'filesystem',
  });
  /** The real paths of the allowed directories. */
  readonly allowedDirs: readonly string[];
  readonly #allowSecrets: boolean;
  readonly #homeDir: string;
  readonly #baseDir: string;

  constructor(options: FileReadToolOptions) {
    super();
    this.#homeDir = options?.homeDir ?? homedir();
    this.#baseDir = options?.baseDir ?? process.cwd();
    this.allowedDirs = resolveAllowedDirs(options?.allowedDirs, {
      homeDir: this.#homeDir,
      baseDir: this.#baseDir,
    });
    this.#allowSecrets = options.allowSecrets === true;
  }

  override async execute(params: ToolArguments, context?: ToolContext): Promise<ToolResult> {
    const request = parseRequest(params);
    if (typeof request === 'string') return this.failure(request, 'invalid_arguments');
    if (this.allowedDirs.length === 0) return this.failure(NO_ALLOWED_DIRS);
    const signal = context?.signal;
    if (signal?.aborted) return this.#cancelled();
    const absolute = resolve(this.#baseDir, expandHome(request.path, this.#homeDir));
    const target = await resolveTarget(absolute, signal);
    if (signal?.aborted) return this.#cancelled();
    const refusal = this.#checkTarget(request.path, absolute, target);
    if (refusal !== undefined) return refusal;
    return this.#read(request, target.realPath, signal);
  }

  /** The refusal for a target outside, under /proc, /sys or /dev, secret, missing or unreadable; else undefined. */
  #checkTarget(path: string, absolute: string, target: ResolvedTarget): ToolResult | undefined {
    if (!isInsideAny(target.realPath, this.allowedDirs)) return this.#outside(path);
    const pseudo = pseudoFileRoot(target.realPath);
    if (pseudo !== undefined) return this.#pseudo(path, `under ${pseudo}`);
    const secret = this.#secretReason(absolute, target.realPath);
    if (secret !== undefined) return this.#sensitive(path, secret);
    if (target.kind === 'missing') return this.failure(`File not found: ${path}`);
    if (target.kind === 'error') return this.failure(`Cannot read ${path}: ${target.detail}`);
    return undefined;
  }

  async #read(
    request: ReadRequest,
    realPath: string,
    signal: AbortSignal | undefined,
  ): Promise<ToolResult> {
    const inspected = await inspectFile(realPath);
    if ('ok' in inspected) return this.#refused(request.path, inspected);
    if (inspected.kind !== 'file') {
      return this.#refused(request.path, {
        ok: false,
        reason: 'not_regular',
        kind: inspected.kind,
      });
    }
    if (inspected.sizeBytes > FILE_READ_MAX_BYTES) {
      return this.#refused(request.path, {
        ok: false,
        reason: 'too_large',
        sizeBytes: inspected.sizeBytes,
      });
    }
    if (signal?.aborted) return this.#cancelled();
    const read = await readVerifiedFile({
      realPath,
      expected: inspected,
      allowedDirs: this.allowedDirs,
      maxBytes: FILE_READ_MAX_BYTES,
    });
    if (!read.ok) return this.#refused(request.path, read);
    if (signal?.aborted) return this.#cancelled();
    return this.#respond(request, read.bytes, read.realPath);
  }

  #respond(request: ReadRequest, bytes: Buffer, realPath: string): ToolResult {
    const decoded = decodeUtf8Text(bytes);
    if (!decoded.ok) return this.failure(decoded.message);
    if (!this.#allowSecrets && looksLikePrivateKey(decoded.text)) {
      return this.#sensitive(request.path, 'it holds a private key');
    }
    const metadata = { path: realPath, size_bytes: bytes.length };
    if (request.maxLines === undefined) return this.success(decoded.text, { metadata });
    const limited = limitLines(decoded.text, request.maxLines);
    if (!limited.cut) return this.success(limited.text, { metadata });
    const separator = limited.text.endsWith('\n') ? '\n' : '\n\n';
    const note = `[Showing the first ${request.maxLines} of ${limited.totalLines} lines; call file_read with a larger max_lines to see more.]`;
    return this.success(`${limited.text}${separator}${note}`, { metadata });
  }

  #secretReason(absolute: string, realPath: string): string | undefined {
    if (this.#allowSecrets) return undefined;
    return secretPathReason(absolute) ?? secretPathReason(realPath);
  }

  #outside(path: string): ToolResult {
    return this.failure(
      `Access denied: ${path} is outside the allowed directories (${this.allowedDirs.join(', ')}).`,
    );
  }

  #pseudo(path: string, where: string): ToolResult {
    return this.failure(
      `Access denied: ${path} is a system pseudo-file (${where}); file_read never reads /proc, /sys or /dev.`,
    );
  }

  #cancelled(): ToolResult {
    return this.failure('file_read was cancelled.', 'cancelled');
  }

  #sensitive(path: string, reason: string): ToolResult {
    return this.failure(`Access denied: ${path} is a sensitive file (${reason}).`);
  }

  #refused(path: string, refusal: ReadRefusal): ToolResult {
    switch (refusal.reason) {
      case 'outside':
        return this.#outside(path);
      case 'pseudo':
        return this.#pseudo(path, refusal.where);
      case 'not_regular':
        return this.failure(`Not a regular file: ${path} (it is a ${refusal.kind}).`);
      case 'too_large':
        return this.failure(
          `File too large: ${refusal.sizeBytes} bytes (max ${FILE_READ_MAX_BYTES}).`,
        );
      case 'changed':
        return this.failure(`File changed while it was being opened: ${path}; try again.`);
      case 'io':
        return this.failure(`Cannot read ${path}: ${refusal.detail}`);
    }
  }
}

/** Checks the arguments again (the tool may be called without the executor); a string is the refusal. */
function parseRequest(params: ToolArguments): ReadRequest | string {
  const path = params.path;
  if (path === undefined || path === null || path === '') return 'No path provided.';
  if (typeof path !== 'string') return `path must be a string, got ${typeof path}.`;
  if (path.includes('\0')) return 'path must not contain NUL characters.';
  const sizeProblem = pathSizeProblem(path);
  if (sizeProblem !== undefined) return sizeProblem;
  const maxLines = parseMaxLines(params.max_lines);
  if (typeof maxLines === 'string') return maxLines;
  return { path, maxLines };
}

function parseMaxLines(value: unknown): number | undefined | string {
  if (value === undefined || value === null) return undefined;
  const number = typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
  if (typeof number === 'number' && Number.isSafeInteger(number) && number >= 1) return number;
  return `max_lines must be a positive whole number (1 or more), got ${JSON.stringify(value)}.`;
}
