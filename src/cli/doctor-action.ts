import type { DiagnosticCheck, DiagnosticsReport } from '../system/index.js';
import { CliExit, ExitCode } from './cli-error.js';
import type { CliIo } from './cli-io.js';
import { terminalText } from './cli-output.js';
import type { DoctorFlags } from './command-flags.js';
import { optionalPackages, optionalPackagesCheck } from './optional-packages.js';

const MARKS = { ok: '✓', warn: '!', fail: '✗' } as const;

/**
 * `jarvis doctor`: runs every check (and lists the optional packages), prints each with its fix, exits 1 when a
 * required check failed.
 */
export async function runDoctor(flags: DoctorFlags, io: CliIo): Promise<void> {
  const { runDiagnostics } = await import('../system/index.js');
  const report = await runDiagnostics({
    env: io.env,
    cwd: io.cwd,
    ...(flags.config === undefined ? {} : { configPath: flags.config }),
    baseUrl: flags.baseUrl,
    engineKey: flags.engine,
    engineTimeoutMs: flags.timeoutMs,
    signal: io.signal,
  });
  // node-llama-cpp also counts as installed in the runtime folder `jarvis engines install embedded` fills.
  const { nodeLlamaCppLocations } = await import('../engine/index.js');
  const packages = optionalPackages({
    alsoIn: { 'node-llama-cpp': nodeLlamaCppLocations() },
    installCommands: { 'node-llama-cpp': 'jarvis engines install embedded' },
  });
  const withPackages = {
    ...report,
    checks: [...report.checks, optionalPackagesCheck(packages)],
  };
  // Checks quote servers and files: on a terminal their escapes are shown visibly.
  io.stdout.write(
    flags.json === true
      ? doctorJson(withPackages)
      : terminalText(doctorText(withPackages), io.stdout),
  );
  if (!report.ok) throw new CliExit(ExitCode.failure);
}

/** The report as JSON with snake_case keys. */
export function doctorJson(report: DiagnosticsReport): string {
  const checks = report.checks.map((check) => ({
    name: check.name,
    title: check.title,
    status: check.status,
    required: check.required,
    summary: check.summary,
    details: check.details,
    ...(check.fix === undefined ? {} : { fix: check.fix }),
  }));
  return `${JSON.stringify({ ok: report.ok, checks }, null, 2)}\n`;
}

/** One block per check (`✓ Node.js  v20.11.1 …`, details and fix indented under it), then a verdict. */
export function doctorText(report: DiagnosticsReport): string {
  const width = Math.max(...report.checks.map((check) => check.title.length));
  const indent = ' '.repeat(width + 3);
  const blocks = report.checks.map((check) => {
    const lines = [`${MARKS[check.status]} ${check.title.padEnd(width)} ${check.summary}`];
    for (const detail of check.details) lines.push(`${indent}${detail}`);
    if (check.fix !== undefined) lines.push(`${indent}fix: ${check.fix}`);
    return lines.join('\n');
  });
  return `${blocks.join('\n')}\n\n${verdict(report.checks)}\n`;
}

function verdict(checks: readonly DiagnosticCheck[]): string {
  const failed = checks.filter((check) => check.status === 'fail');
  const warned = checks.filter((check) => check.status === 'warn');
  const warnings =
    warned.length === 0
      ? ''
      : ` (${warned.length === 1 ? '1 warning' : `${warned.length} warnings`})`;
  if (failed.length === 0) return `All required checks passed${warnings}.`;
  const names = failed.map((check) => check.title).join(', ');
  const count = failed.length === 1 ? '1 required check' : `${failed.length} required checks`;
  return `${count} failed: ${names}. Fix as shown above and run \`jarvis doctor\` again.`;
}
