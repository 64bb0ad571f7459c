import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { DiagnosticCheck } from '../system/index.js';
import { type PackageManifest, packageManifest, packageRoot } from './package-version.js';

/** What each optional package is for; the list itself is package.json's optional peer dependencies. */
const USES: Readonly<Record<string, string>> = {
  '@modelcontextprotocol/sdk': 'MCP (servers listed in config, `jarvis mcp serve`)',
  'node-llama-cpp': 'the embedded engine (GGUF models in-process)',
  pyodide: "the code interpreter's sandbox on machines without python3",
  '@opentelemetry/sdk-trace-base': 'exporting traces over OTLP ([telemetry] otlp_endpoint)',
  '@opentelemetry/exporter-trace-otlp-http':
    'exporting traces over OTLP ([telemetry] otlp_endpoint)',
  '@opentelemetry/resources': 'exporting traces over OTLP ([telemetry] otlp_endpoint)',
};

/** An optional package: loaded only by the feature that needs it, installed by the user when wanted. */
export interface OptionalPackage {
  readonly name: string;
  /** The version (range) package.json asks for. */
  readonly version: string;
  /** The feature that needs it. */
  readonly use: string;
  readonly installed: boolean;
  /** The npm command that adds it (`-g` when OpenJarvis itself is installed globally). */
  readonly installCommand: string;
}

/** Where to look: the package manifest, its folder and the node binary (defaults: this installation). */
export interface OptionalPackagesOptions {
  readonly manifest?: PackageManifest;
  readonly root?: string;
  readonly execPath?: string;
  /** Other npm prefixes a package may be installed in (the embedded runtime folder for node-llama-cpp). */
  readonly alsoIn?: Readonly<Record<string, readonly string[]>>;
  /** A command that installs a package, instead of `npm install <name>@<version>`. */
  readonly installCommands?: Readonly<Record<string, string>>;
}

/** The optional peer dependencies of package.json, each with whether it is installed and how to add it. */
export function optionalPackages(
  options: OptionalPackagesOptions = {},
): readonly OptionalPackage[] {
  const manifest = options.manifest ?? packageManifest();
  const root = options.root ?? packageRoot();
  const global = isGlobalInstall(root, options.execPath ?? process.execPath);
  return Object.entries(manifest.peerDependenciesMeta ?? {})
    .filter(([, meta]) => meta.optional === true)
    .map(([name]) => {
      const version = manifest.peerDependencies?.[name] ?? 'latest';
      return {
        name,
        version,
        use: USES[name] ?? 'an optional feature',
        installed:
          isInstalled(name, root) ||
          (options.alsoIn?.[name] ?? []).some((prefix) =>
            existsSync(join(prefix, 'node_modules', name, 'package.json')),
          ),
        installCommand:
          options.installCommands?.[name] ?? `npm install ${global ? '-g ' : ''}${name}@${version}`,
      };
    });
}

/** True when `name` resolves from `root` as Node would find it (a `node_modules` folder on the way up). */
function isInstalled(name: string, root: string): boolean {
  for (let dir = root; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'node_modules', name, 'package.json'))) return true;
    if (dirname(dir) === dir) return false;
  }
}

/** True when the package sits in npm's global folder (`<prefix>/lib/node_modules`; on Windows beside node). */
function isGlobalInstall(root: string, execPath: string): boolean {
  const folder = dirname(root);
  const unix = join(dirname(dirname(execPath)), 'lib', 'node_modules');
  return folder === unix || folder === join(dirname(execPath), 'node_modules');
}

/** The package a "Cannot find package/module 'x'" error names (`@scope/name` or `name`), if any. */
function missingPackageName(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const code = (error as { readonly code?: unknown }).code;
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return undefined;
  const specifier = /Cannot find (?:package|module) '([^']+)'/.exec(error.message)?.[1];
  if (specifier === undefined || specifier.startsWith('.') || specifier.startsWith('/'))
    return undefined;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/**
 * For an error thrown because an optional package is not installed: an error that says which feature needs it
 * and the exact command that installs it. Any other error comes back as it is.
 */
export function explainMissingPackage(
  error: unknown,
  options: OptionalPackagesOptions = {},
): unknown {
  const name = missingPackageName(error);
  if (name === undefined) return error;
  const found = optionalPackages(options).find((entry) => entry.name === name);
  if (found === undefined) return error;
  const message = `${found.use} needs the optional package ${name}, which is not installed. Install it with: ${found.installCommand}`;
  return Object.assign(new Error(message, { cause: error }), { code: 'package_missing' });
}

/** The `jarvis doctor` check that lists the optional packages: installed or not, and how to add each. */
export function optionalPackagesCheck(
  packages: readonly OptionalPackage[] = optionalPackages(),
): DiagnosticCheck {
  const missing = packages.filter((entry) => !entry.installed).map((entry) => entry.name);
  const installed = packages.filter((entry) => entry.installed).map((entry) => entry.name);
  const summary =
    missing.length === 0
      ? `all installed (${installed.join(', ') || 'none declared'})`
      : `not installed: ${missing.join(', ')} (each needed only for one feature)`;
  const details = packages.map((entry) =>
    entry.installed
      ? `${entry.name}: installed (${entry.use})`
      : `${entry.name}: not installed, needed for ${entry.use}: ${entry.installCommand}`,
  );
  return {
    name: 'packages',
    title: 'Optional packages',
    required: false,
    status: 'ok',
    summary,
    details,
  };
}
