import type { ModelRecommendation } from '../engine/index.js';
import type { NoModelError } from '../system/index.js';
import type { CliIo } from './cli-io.js';
import { untrustedLine } from './cli-output.js';
import { hubSettings, pullWithProgress } from './models-pull-action.js';
import { canAsk, promptYesNo } from './prompt-yes-no.js';

/** Flags the first-run offer reads: `--yes` accepts it without asking, `--config` names the config. */
export interface FirstRunFlags {
  readonly yes?: boolean | undefined;
  readonly config?: string | undefined;
  /** What the model is for: answering the question now (`jarvis ask`, default) or later (`jarvis init`). */
  readonly purpose?: 'answer' | 'use';
}

/**
 * What `jarvis ask` and `jarvis init` do when no engine answers and no model is downloaded: offer (on a
 * terminal) to download the model recommended for this machine into the models folder. Resolves true once the
 * model is there, false when declined (the command that fixes it is printed); without a terminal and `--yes` it
 * fails with that command.
 */
export async function offerFirstModel(
  problem: Pick<NoModelError, 'modelsDir'>,
  flags: FirstRunFlags,
  io: CliIo,
): Promise<boolean> {
  const settings = await hubSettings(
    flags.config === undefined ? {} : { config: flags.config },
    io,
  );
  const recommendation = await machineRecommendation();
  const about = `${await aboutModel(recommendation)}${await runtimeNote(settings.home)}`;
  if (flags.yes === true) {
    io.stderr.write(
      `No inference engine is running and no model is downloaded: downloading ${about}.\n`,
    );
  } else if (!canAsk(io)) {
    throw await noModelFailure(recommendation);
  } else {
    io.stderr.write('No inference engine is running and no model is downloaded.\n');
    const use = flags.purpose === 'use' ? 'to use it' : 'and answer with it here';
    const yes = await promptYesNo(`Download ${about}, ${use}?`, io);
    if (!yes) {
      io.stderr.write(`${pullAdvice(recommendation)}\n`);
      return false;
    }
  }
  await pullWithProgress(
    recommendation.model.name,
    { ...settings, modelsDir: problem.modelsDir },
    io,
  );
  return true;
}

/** The catalog model recommended for this machine (memory, cores, and the GPU llama.cpp finds). */
async function machineRecommendation(): Promise<ModelRecommendation> {
  const { machineFacts, recommendModel } = await import('../engine/index.js');
  return recommendModel(await machineFacts());
}

/** `qwen3-1.7b (about 1.8 GB, licence apache-2.0), recommended for this machine (16.0 GB RAM, …)`. */
async function aboutModel({ model, reason }: ModelRecommendation): Promise<string> {
  const { formatBytes } = await import('../engine/index.js');
  return `${model.name} (about ${formatBytes(model.sizeBytes)}, licence ${untrustedLine(model.license)}), recommended for this machine (${reason})`;
}

/** ` and the embedded runtime (…)` when node-llama-cpp does not load yet (the pull installs it first). */
async function runtimeNote(home: string | undefined): Promise<string> {
  if (home === undefined) return '';
  const { embeddedRuntimeInstalled } = await import('./engines-install-action.js');
  if (await embeddedRuntimeInstalled(home)) return '';
  return ' and the embedded runtime that runs it (node-llama-cpp with llama.cpp, about 80 MB)';
}

function pullAdvice({ model }: ModelRecommendation): string {
  return [
    'To answer in-process (nothing else to install), download a model first:',
    `  jarvis models pull ${model.name}`,
    'or add --yes to download it and answer at once. A running Ollama or OpenAI-compatible server is used',
    'first when there is one (`jarvis engines` shows which answer).',
  ].join('\n');
}

/** Without a terminal: exit 1, saying what was missing and the one command that fixes it. */
async function noModelFailure(recommendation: ModelRecommendation): Promise<Error> {
  const { JarvisError } = await import('../core/index.js');
  return new JarvisError({
    code: 'engine_not_found',
    message: `No inference engine is running and no model is downloaded.\n${pullAdvice(recommendation)}`,
  });
}
