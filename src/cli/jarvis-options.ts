import type { Jarvis, JarvisOptions } from '../sdk/index.js';
import type { JarvisConfig, JarvisSystem } from '../system/index.js';
import type { CliIo } from './cli-io.js';
import { diagnosticText } from './cli-output.js';
import type { JarvisFlags } from './jarvis-flags.js';
import { requestLogEnabled, requestLogPrinter } from './request-log.js';

export { addJarvisFlags, type JarvisFlags } from './jarvis-flags.js';

/**
 * The SDK options for these flags. When HTTP requests are to be logged (`--verbose`, `OPENJARVIS_LOG=debug`)
 * they carry `requestLog`, a printer of one redacted line per request on stderr.
 */
export function jarvisOptions(
  flags: JarvisFlags,
  io: CliIo,
  extra: Partial<JarvisOptions> = {},
): JarvisOptions {
  const options: JarvisOptions = {
    env: io.env,
    ...(flags.config === undefined ? {} : { configPath: flags.config }),
    ...(flags.engine === undefined ? {} : { engine: flags.engine }),
    ...(flags.model === undefined ? {} : { model: flags.model }),
    ...(flags.baseUrl === undefined ? {} : { baseUrl: flags.baseUrl }),
    ...(flags.import === undefined ? {} : { imports: flags.import }),
    cwd: io.cwd,
    ...extra,
  };
  if (!requestLogEnabled(io)) return options;
  return { ...options, requestLog: requestLogPrinter(io.stderr, () => io.session?.redactor) };
}

/** Opens the SDK with the flags (heavy modules load here, not at start-up); config warnings go to stderr. */
export async function openJarvis(
  flags: JarvisFlags,
  io: CliIo,
  extra: Partial<JarvisOptions> = {},
): Promise<Jarvis> {
  const { Jarvis } = await import('../sdk/index.js');
  const jarvis = new Jarvis(jarvisOptions(flags, io, extra));
  adoptRedactor(await jarvis.system(), io);
  for (const warning of jarvis.warnings) {
    const where = warning.line === undefined ? warning.file : `${warning.file}:${warning.line}`;
    const text = diagnosticText(`${where}: ${warning.message}`, io.session?.redactor);
    io.stderr.write(`warning: ${text}\n`);
  }
  return jarvis;
}

/**
 * Uses the system's redactor (it knows the configured API keys) for everything the CLI prints from now on,
 * when the system offers one as `redact`.
 */
function adoptRedactor(system: JarvisSystem, io: CliIo): void {
  const redact: unknown = (system as { readonly redact?: unknown }).redact;
  if (typeof redact !== 'function') return;
  io.session?.useRedactor((text) => String(Reflect.apply(redact, system, [text])));
}

/**
 * The config of `--config` (else `OPENJARVIS_CONFIG` or the home's) for commands that need no SDK, with its
 * warnings on stderr.
 */
export async function loadCliConfig(
  configPath: string | undefined,
  io: CliIo,
): Promise<JarvisConfig> {
  const system = await import('../system/index.js');
  const loaded = await system.loadConfig({
    env: io.env,
    cwd: io.cwd,
    ...(configPath === undefined ? {} : { configPath }),
  });
  for (const warning of loaded.warnings)
    io.stderr.write(`warning: ${diagnosticText(`${warning.file}: ${warning.message}`)}\n`);
  return loaded.config;
}
