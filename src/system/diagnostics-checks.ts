import { constants } from 'node:fs';
import { access, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describeError } from '../core/index.js';
import { SQLiteMemory } from '../memory/index.js';
import { INSTALL_HINT, type SandboxSelection } from '../tools/index.js';
import type { JarvisConfig } from './config/index.js';
import {
  type EngineStatus,
  OLLAMA_PULL_COMMAND,
  PULL_COMMAND,
  type SurveyEnginesOptions,
  surveyEngines,
} from './engine-survey.js';
import { buildSystem } from './system.js';

/** `ok` passed, `warn` works with a caveat, `fail` does not work. */
export type DiagnosticStatus = 'ok' | 'warn' | 'fail';

/** One check of `jarvis doctor`: what was found and, when it is not fine, what to do. */
export interface DiagnosticCheck {
  /** Stable id: `node`, `config`, `engines`, `sqlite`, `sandbox`, `home`. */
  readonly name: string;
  /** What is checked, for people (`Node.js`, `Engines`, …). */
  readonly title: string;
  readonly status: DiagnosticStatus;
  /** Whether a failure of this check means OpenJarvis cannot work (the sandbox is optional). */
  readonly required: boolean;
  /** One line on what was found. */
  readonly summary: string;
  /** More lines (each engine, each config problem). */
  readonly details: readonly string[];
  /** What to do, when the check did not pass. */
  readonly fix?: string;
}

/** The oldest Node.js major version OpenJarvis runs on. */
export const MIN_NODE_MAJOR = 20;

/** Checks the Node.js version (`20.11.1`, with or without a leading `v`). */
export function checkNode(version: string): DiagnosticCheck {
  const major = Number.parseInt(version.replace(/^v/, ''), 10);
  const base = { name: 'node', title: 'Node.js', required: true, details: [] } as const;
  if (Number.isInteger(major) && major >= MIN_NODE_MAJOR)
    return { ...base, status: 'ok', summary: `${version} (>= ${MIN_NODE_MAJOR} required)` };
  return {
    ...base,
    status: 'fail',
    summary: `${version}: too old (>= ${MIN_NODE_MAJOR} required)`,
    fix: `install Node.js ${MIN_NODE_MAJOR} or newer (https://nodejs.org, or \`nvm install ${MIN_NODE_MAJOR}\`)`,
  };
}

/** What to start when no engine answers: the in-process route first, then the servers. */
const START_A_SERVER =
  'start a server: `ollama serve` then `' +
  OLLAMA_PULL_COMMAND +
  '`, `vllm serve <model>` or `llama-server -m model.gguf --port 8080`; ' +
  'or point to a server with --base-url <url> / OPENAI_BASE_URL';

/**
 * Checks that at least one engine answers with a model, listing each one: `ok` when one has models, `warn` when
 * every engine that answers has none (with the pull command), `fail` when none answers.
 */
export async function checkEngines(options: SurveyEnginesOptions): Promise<DiagnosticCheck> {
  const engines = await surveyEngines(options);
  const reachable = engines.filter((engine) => engine.reachable);
  const empty = reachable.filter(hasNoModels);
  const usable = reachable.filter((engine) => !hasNoModels(engine));
  const addressWidth = Math.max(...engines.map((engine) => engine.address.length));
  const details = engines.map((engine) => engineLine(engine, addressWidth));
  const base = { name: 'engines', title: 'Engines', required: true, details };
  const emptyNames = empty.map((engine) => engine.key).join(', ');
  if (usable.length > 0) {
    const names = usable.map((engine) => engine.key).join(', ');
    const without = empty.length === 0 ? '' : `; without models: ${emptyNames}`;
    return { ...base, status: 'ok', summary: `reachable: ${names}${without}` };
  }
  if (empty.length > 0) {
    return {
      ...base,
      status: 'warn',
      summary: `reachable, but without models: ${emptyNames}`,
      fix: pullFix(empty),
    };
  }
  const embedded = engines.find((engine) => engine.key === 'embedded');
  return { ...base, status: 'fail', summary: 'none reachable', fix: noEngineFix(embedded) };
}

/** An engine that answers but offers no model (one whose list could not be read is given the benefit of doubt). */
function hasNoModels(engine: EngineStatus): boolean {
  return engine.reachable && engine.models.length === 0 && engine.problem === undefined;
}

/** How to get a model onto engines that have none: Ollama's pull, else the in-process download. */
function pullFix(empty: readonly EngineStatus[]): string {
  const inProcess = `\`${PULL_COMMAND}\` (runs in-process, nothing else to install)`;
  if (empty.some((engine) => engine.key === 'ollama'))
    return `pull a model: \`${OLLAMA_PULL_COMMAND}\`, or ${inProcess}`;
  const names = empty.map((engine) => engine.key).join(', ');
  return `load a model into ${names}, or ${inProcess}`;
}

/** What to do when no engine answers: the no-install route first (fix the embedded engine as its line says). */
function noEngineFix(embedded: EngineStatus | undefined): string {
  const modelMissing = embedded?.problem?.includes(PULL_COMMAND) ?? true;
  if (embedded === undefined || embedded.runtimeWorks !== false)
    return `\`${PULL_COMMAND}\` (runs in-process, nothing else to install), or ${START_A_SERVER}`;
  if (modelMissing)
    return (
      `\`${PULL_COMMAND}\` (runs in-process once the embedded runtime loads: see its line above), ` +
      `or ${START_A_SERVER}`
    );
  return `make the embedded runtime load (see its line above), or ${START_A_SERVER}`;
}

function engineLine(engine: EngineStatus, addressWidth: number): string {
  const models = engine.models.length === 1 ? '1 model' : `${engine.models.length} models`;
  let state = engine.reachable ? `reachable, ${models}` : (engine.problem ?? 'unreachable');
  if (hasNoModels(engine))
    state =
      engine.key === 'ollama'
        ? `reachable, but no models: \`${OLLAMA_PULL_COMMAND}\``
        : 'reachable, but no models loaded';
  else if (engine.reachable && engine.problem !== undefined) state += ` (${engine.problem})`;
  if (engine.gpu !== undefined) state += `; llama.cpp runs on ${engine.gpu}`;
  return `${engine.key.padEnd(9)} ${engine.address.padEnd(addressWidth)}  ${state}`;
}

/** Checks that SQLite with FTS5 works by creating an in-memory memory database (it has an FTS5 table). */
export async function checkSqlite(): Promise<DiagnosticCheck> {
  const base = { name: 'sqlite', title: 'SQLite with FTS5', required: true, details: [] } as const;
  try {
    const memory = new SQLiteMemory({ dbPath: ':memory:' });
    await memory.store('doctor check');
    const found = await memory.retrieve('doctor', { topK: 1 });
    await memory.close();
    if (found.length !== 1) throw new Error('a stored document was not found by full-text search');
    return { ...base, status: 'ok', summary: 'better-sqlite3 with FTS5 works' };
  } catch (error) {
    return {
      ...base,
      status: 'fail',
      summary: `does not work: ${describeError(error)}`,
      fix: 'reinstall the native module: `npm rebuild better-sqlite3` (Node 20 needs better-sqlite3 12.x)',
    };
  }
}

/** Options of `checkSandbox`. */
export interface SandboxCheckOptions {
  readonly selectSandbox?: (config: JarvisConfig) => Promise<SandboxSelection>;
}

/** Checks which sandbox the code interpreter would run code in (optional: only `code_interpreter` needs it). */
export async function checkSandbox(
  config: JarvisConfig,
  options: SandboxCheckOptions = {},
): Promise<DiagnosticCheck> {
  const base = { name: 'sandbox', title: 'Code sandbox', required: false, details: [] } as const;
  let selection: SandboxSelection;
  try {
    selection = await (options.selectSandbox ?? systemSandbox)(config);
  } catch (error) {
    selection = { ok: false, reason: describeError(error) };
  }
  if (!selection.ok) {
    const reason = selection.reason.replace(`; ${INSTALL_HINT}`, '');
    return { ...base, status: 'warn', summary: `none (${reason})`, fix: INSTALL_HINT };
  }
  const { name } = selection.backend;
  if (name === 'unsandboxed') {
    return {
      ...base,
      status: 'warn',
      summary: 'unsandboxed: code runs WITHOUT isolation (allow_unsandboxed = true)',
      fix: INSTALL_HINT.replace(
        /, or set allowUnsandboxed.*$/,
        ', then set allow_unsandboxed = false',
      ),
    };
  }
  return { ...base, status: 'ok', summary: name };
}

/** The code interpreter's own choice, as the system makes it. */
async function systemSandbox(config: JarvisConfig): Promise<SandboxSelection> {
  const system = buildSystem({ config });
  try {
    return await system.codeInterpreter().sandbox();
  } finally {
    await system.close();
  }
}

/** Checks that the home folder (databases, config) can be written, or created when it does not exist yet. */
export async function checkHome(home: string): Promise<DiagnosticCheck> {
  const base = { name: 'home', title: 'Home folder', required: true, details: [] } as const;
  const fix = `make it writable (\`chmod u+w ${home}\`), or set OPENJARVIS_HOME to a writable folder`;
  const info = await stat(home).catch(() => undefined);
  if (info === undefined) {
    const parent = await nearestExisting(dirname(home));
    if (parent !== undefined && (await writable(parent)))
      return { ...base, status: 'ok', summary: `${home}: not created yet (will be, at first use)` };
    return {
      ...base,
      status: 'fail',
      summary: `${home}: does not exist and cannot be created`,
      fix,
    };
  }
  if (!info.isDirectory())
    return {
      ...base,
      status: 'fail',
      summary: `${home}: is not a folder`,
      fix: 'set OPENJARVIS_HOME to a folder',
    };
  const probe = join(home, `.doctor-${crypto.randomUUID()}.tmp`);
  try {
    await writeFile(probe, '', { flag: 'wx' });
    await rm(probe, { force: true });
    return { ...base, status: 'ok', summary: `${home}: writable` };
  } catch (error) {
    return {
      ...base,
      status: 'fail',
      summary: `${home}: not writable (${describeError(error)})`,
      fix,
    };
  }
}

async function nearestExisting(path: string): Promise<string | undefined> {
  let current = path;
  for (;;) {
    if (
      await stat(current).then(
        () => true,
        () => false,
      )
    )
      return current;
    const parent = dirname(current);
    if (parent === current) return undefined;
    current = parent;
  }
}

async function writable(path: string): Promise<boolean> {
  return access(path, constants.W_OK).then(
    () => true,
    () => false,
  );
}
