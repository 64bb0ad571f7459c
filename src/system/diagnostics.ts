import { homedir } from 'node:os';
import type { SandboxSelection } from '../tools/index.js';
import {
  type ConfigWarning,
  configFromToml,
  configLocation,
  type JarvisConfig,
  type LoadConfigOptions,
  loadConfig,
} from './config/index.js';
import {
  checkEngines,
  checkHome,
  checkNode,
  checkSandbox,
  checkSqlite,
  type DiagnosticCheck,
} from './diagnostics-checks.js';
import { useEmbeddedRuntimeIn } from './embedded-runtime-location.js';
import type { ProbeEmbeddedRuntime } from './engine-survey.js';

export type { DiagnosticCheck, DiagnosticStatus } from './diagnostics-checks.js';

/** Options of `runDiagnostics`: where the config is, which engine to look for, and the probe budget. */
export interface DiagnosticsOptions extends LoadConfigOptions {
  /** `--base-url`: the address of `engineKey` (else the configured default engine, else `openai`). */
  readonly baseUrl?: string | undefined;
  readonly engineKey?: string | undefined;
  /** Budget of each engine probe (default 500 ms). */
  readonly engineTimeoutMs?: number | undefined;
  readonly signal?: AbortSignal | undefined;
  /** The Node.js version checked (default `process.versions.node`). */
  readonly nodeVersion?: string;
  /** Checks that the embedded engine's runtime loads (default: node-llama-cpp and llama.cpp, once per process). */
  readonly probeEmbeddedRuntime?: ProbeEmbeddedRuntime | undefined;
  /** How the sandbox is chosen (default: as the system's code interpreter chooses it). */
  readonly selectSandbox?: (config: JarvisConfig) => Promise<SandboxSelection>;
}

/** Every check `jarvis doctor` runs, in the order shown, and whether all required ones passed. */
export interface DiagnosticsReport {
  /** True when no required check failed (warnings allowed). */
  readonly ok: boolean;
  readonly checks: readonly DiagnosticCheck[];
}

/**
 * Checks the setup: Node.js version, the config file, the engines, SQLite with FTS5, the code sandbox and the
 * home folder. Each failed check says what to do. Never throws for a failed check.
 */
export async function runDiagnostics(options: DiagnosticsOptions = {}): Promise<DiagnosticsReport> {
  const { check: configCheck, config } = await checkConfig(options);
  useEmbeddedRuntimeIn(config.home);
  const checks = [
    checkNode(options.nodeVersion ?? process.versions.node),
    configCheck,
    ...(await Promise.all([
      checkEngines({
        config,
        baseUrl: options.baseUrl,
        engineKey: options.engineKey,
        ...(options.engineTimeoutMs === undefined ? {} : { timeoutMs: options.engineTimeoutMs }),
        signal: options.signal,
        probeEmbeddedRuntime: options.probeEmbeddedRuntime,
      }),
      checkSqlite(),
      checkSandbox(config, options),
      checkHome(config.home),
    ])),
  ];
  return { ok: checks.every((check) => check.status !== 'fail'), checks };
}

/** Loads the config; when it cannot be loaded the other checks use the defaults. */
async function checkConfig(
  options: DiagnosticsOptions,
): Promise<{ check: DiagnosticCheck; config: JarvisConfig }> {
  const location = configLocation(options);
  try {
    const { config, warnings } = await loadConfig(options);
    return { check: configOk(location.path, config, warnings), config };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const check: DiagnosticCheck = {
      name: 'config',
      title: 'Config file',
      status: 'fail',
      required: true,
      summary: `${location.path}: cannot be used`,
      details: message.split('\n'),
      fix: 'fix the file as the message says, or replace it with the starter config: `jarvis init --force`',
    };
    const context = {
      home: location.home,
      cwd: options.cwd ?? process.cwd(),
      homeDir: options.homeDir ?? homedir(),
    };
    return { check, config: configFromToml('', location.path, context).config };
  }
}

function configOk(
  path: string,
  config: JarvisConfig,
  warnings: readonly ConfigWarning[],
): DiagnosticCheck {
  const base = { name: 'config', title: 'Config file', required: true } as const;
  if (config.configPath === undefined) {
    return {
      ...base,
      status: 'ok',
      summary: `${path}: not present (the defaults are used)`,
      details: ['`jarvis init` writes a commented starter config there'],
    };
  }
  if (warnings.length === 0)
    return { ...base, status: 'ok', summary: `${path}: valid`, details: [] };
  return {
    ...base,
    status: 'warn',
    summary: `${path}: valid, with ${warnings.length === 1 ? '1 warning' : `${warnings.length} warnings`}`,
    details: warnings.map(
      (warning) =>
        `${warning.line === undefined ? '' : `line ${warning.line}: `}${warning.key}: ${warning.message}`,
    ),
    fix: 'remove or correct the keys above (the starter config of `jarvis init` lists every key)',
  };
}
