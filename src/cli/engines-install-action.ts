import { join } from 'node:path';
import { type Clock, describeError, JarvisError, systemClock } from '../core/index.js';
import type {
  EmbeddedRuntimeGpu,
  EmbeddedRuntimePlan,
  InstalledEmbeddedRuntime,
} from '../system/index.js';
import { UsageError } from './cli-error.js';
import type { CliIo } from './cli-io.js';
import { jsonText, untrustedLine } from './cli-output.js';
import { loadCliConfig } from './jarvis-options.js';
import { ProgressLine } from './progress.js';

/** Flags of `jarvis engines install`. */
export interface EnginesInstallFlags {
  readonly config?: string;
  readonly gpu: EmbeddedRuntimeGpu;
  readonly json?: boolean;
}

/** The engines `jarvis engines install` can install. */
const INSTALLABLE = ['embedded'] as const;

/** What the load check found: the GPU llama.cpp uses and whether its binary is prebuilt. */
interface LoadedRuntime {
  readonly gpu: string;
  readonly buildType: string;
  readonly seconds: number;
}

/**
 * `jarvis engines install embedded`: installs node-llama-cpp with only this machine's llama.cpp build into
 * `<home>/runtime`, then checks that llama.cpp loads from there.
 */
export async function runEnginesInstall(
  engine: string,
  flags: EnginesInstallFlags,
  io: CliIo,
  clock: Clock = systemClock,
): Promise<void> {
  if (engine !== 'embedded')
    throw new UsageError(
      `Cannot install '${untrustedLine(engine)}': only ${INSTALLABLE.join(', ')} can be installed ` +
        '(`jarvis engines install embedded`); servers such as ollama or vllm are installed on their own.',
    );
  const system = await import('../system/index.js');
  const dir = system.embeddedRuntimeDir((await loadCliConfig(flags.config, io)).home);
  const plan = system.embeddedRuntimePlan({
    gpu: flags.gpu,
    hasNvidiaDriver: system.hasNvidiaDriver(),
  });
  io.stderr.write(`Installing the embedded runtime (${describePlan(plan)}) into ${dir}\n`);
  if (flags.gpu === 'auto' && plan.build === 'cuda')
    io.stderr.write('An NVIDIA driver was found; `--gpu cpu` installs the CPU build only.\n');
  const installed = await installWithProgress(dir, flags.gpu, plan, io);
  io.stderr.write(`Installed in ${installed.seconds} s; checking that llama.cpp loads\n`);
  const loaded = await checkRuntimeLoads(dir, installed.build, clock);
  if (flags.json === true) {
    io.stdout.write(jsonText(installJson(installed, loaded)));
    return;
  }
  io.stdout.write(`llama.cpp ready (${loaded.gpu}, ${loaded.buildType}) in ${loaded.seconds} s\n`);
}

/** `node-llama-cpp 3.21.1, llama.cpp CPU build for linux-x64, about 80 MB`. */
export function describePlan(plan: EmbeddedRuntimePlan): string {
  const version = plan.packages[0]?.split('@').at(-1) ?? '';
  const build = { cpu: 'CPU', metal: 'Metal', cuda: 'CUDA', vulkan: 'Vulkan' }[plan.build];
  const fallback = plan.build === 'cuda' || plan.build === 'vulkan' ? ' (and the CPU build)' : '';
  const target = plan.binary.replace(/-metal$/, '');
  return `node-llama-cpp ${version}, llama.cpp ${build} build${fallback} for ${target}, about ${plan.approximateMegabytes} MB`;
}

/**
 * Runs the install, showing npm's progress on stderr: every line (dimmed and indented) with `--verbose`, else a
 * redrawn line on a terminal and nothing on a pipe. npm's last lines are in the error when it fails.
 */
async function installWithProgress(
  dir: string,
  gpu: EmbeddedRuntimeGpu,
  plan: EmbeddedRuntimePlan,
  io: CliIo,
): Promise<InstalledEmbeddedRuntime> {
  const system = await import('../system/index.js');
  const output = npmOutput(io, plan);
  try {
    return await system.installEmbeddedRuntime({
      dir,
      gpu,
      hasNvidiaDriver: plan.build === 'cuda',
      signal: io.signal,
      onOutput: output.line,
    });
  } catch (error) {
    output.done();
    if (io.signal.aborted) {
      io.stderr.write(
        'Install stopped; run `jarvis engines install embedded` again to finish it.\n',
      );
      throw io.signal.reason;
    }
    throw error;
  } finally {
    output.done();
  }
}

/** Where npm's lines go while it runs. */
interface NpmOutput {
  readonly line: (text: string) => void;
  readonly done: () => void;
}

function npmOutput(io: CliIo, plan: EmbeddedRuntimePlan): NpmOutput {
  if (io.session?.verbose === true) {
    const dim = io.stderr.isTTY && io.env.NO_COLOR === undefined;
    return {
      line: (text) =>
        io.stderr.write(dim ? `\u001b[2m  npm | ${text}\u001b[22m\n` : `  npm | ${text}\n`),
      done: () => undefined,
    };
  }
  if (!io.stderr.isTTY) return { line: () => undefined, done: () => undefined };
  const progress = new ProgressLine(io.stderr);
  let status = `npm is installing ${plan.packages.length} packages`;
  const timer = setInterval(() => progress.update(status), 120);
  progress.update(status, true);
  return {
    line: (text) => {
      status = `npm: ${text}`;
      progress.update(status);
    },
    done: () => {
      clearInterval(timer);
      progress.clear();
    },
  };
}

/**
 * Imports node-llama-cpp from `dir` (not from beside openjarvis) and starts llama.cpp with its prebuilt binary
 * only (`build: 'never'`: no compiling, no download), on the CPU for a CPU build, else the best GPU found.
 */
async function checkRuntimeLoads(
  dir: string,
  build: EmbeddedRuntimePlan['build'],
  clock: Clock,
): Promise<LoadedRuntime> {
  const startMs = clock.monotonicMs();
  try {
    const { importNodeLlamaCppFrom } = await import('../engine/index.js');
    const module = await importNodeLlamaCppFrom(dir);
    if (module === undefined)
      throw new Error(`node-llama-cpp is not in ${join(dir, 'node_modules')}`);
    const llama = await module.getLlama({
      gpu: build === 'cpu' ? false : 'auto',
      build: 'never',
      skipDownload: true,
      progressLogs: false,
      logLevel: module.LlamaLogLevel.error,
      logger: () => undefined,
    });
    const found = { gpu: llama.gpu === false ? 'cpu' : llama.gpu, buildType: llama.buildType };
    await llama.dispose();
    return { ...found, seconds: Math.round((clock.monotonicMs() - startMs) / 100) / 10 };
  } catch (error) {
    throw new JarvisError({
      code: 'engine_unavailable',
      message:
        `node-llama-cpp was installed into ${dir} but llama.cpp did not start (${describeError(error)}). ` +
        loadFailureAdvice(dir, build),
      cause: error,
    });
  }
}

/** What to try when the installed llama.cpp does not start: the CPU build (after a GPU one), or a local build. */
function loadFailureAdvice(dir: string, build: EmbeddedRuntimePlan['build']): string {
  const local = `build llama.cpp for this machine: \`cd ${dir} && npx --no node-llama-cpp source build\``;
  return build === 'cpu' || build === 'metal'
    ? `You can ${local}`
    : `Try \`jarvis engines install embedded --gpu cpu\`, or ${local}`;
}

/** The `--json` answer (snake_case). */
function installJson(installed: InstalledEmbeddedRuntime, loaded: LoadedRuntime): unknown {
  return {
    engine: 'embedded',
    dir: installed.dir,
    packages: installed.packages,
    build: installed.build,
    install_seconds: installed.seconds,
    gpu: loaded.gpu,
    build_type: loaded.buildType,
    load_seconds: loaded.seconds,
  };
}

/** Whether node-llama-cpp loads: beside openjarvis, or from the runtime folder of `home`. */
export async function embeddedRuntimeInstalled(home: string): Promise<boolean> {
  const system = await import('../system/index.js');
  const { loadNodeLlamaCpp } = await import('../engine/index.js');
  system.useEmbeddedRuntimeIn(home);
  return loadNodeLlamaCpp().then(
    () => true,
    () => false,
  );
}

/**
 * Before a model pull (which uses node-llama-cpp's downloader, and whose model needs llama.cpp to run): installs
 * the embedded runtime into `<home>/runtime` when it does not load yet, saying so first.
 */
export async function ensureEmbeddedRuntime(home: string, io: CliIo): Promise<void> {
  if (await embeddedRuntimeInstalled(home)) return;
  const system = await import('../system/index.js');
  const dir = system.embeddedRuntimeDir(home);
  const plan = system.embeddedRuntimePlan({
    gpu: 'auto',
    hasNvidiaDriver: system.hasNvidiaDriver(),
  });
  io.stderr.write(
    `The embedded runtime is not installed yet: installing it first (${describePlan(plan)}) into ${dir}\n`,
  );
  const installed = await installWithProgress(dir, 'auto', plan, io);
  io.stderr.write(`Installed in ${installed.seconds} s\n`);
}
