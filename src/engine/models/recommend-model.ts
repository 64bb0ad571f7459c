import { type CatalogModel, MODEL_CATALOG } from './catalog.js';
import { formatBytes } from './model-file-checks.js';

/** What a recommendation looks at: memory, cores and the GPU llama.cpp found. */
export interface MachineFacts {
  readonly totalMemoryBytes: number;
  readonly freeMemoryBytes: number;
  readonly cores: number;
  /** The GPU backend llama.cpp would use (`cuda`, `vulkan`, `metal`), or false for none. */
  readonly gpu: string | false;
  /** Total video memory, when there is a GPU. */
  readonly vramBytes?: number | undefined;
}

/** The model to offer, and why in a few words a person can check (`16.0 GB RAM, 8 cores, no GPU`). */
export interface ModelRecommendation {
  readonly model: CatalogModel;
  readonly reason: string;
}

/** The catalog name offered when nothing is known about the machine (fits 4 GB of RAM, fine on 2 cores). */
export const RECOMMENDED_MODEL = 'qwen3-1.7b';

/** Largest first: the models a recommendation chooses between. */
const LADDER = ['qwen3-8b', 'qwen3-4b', 'qwen3-1.7b', 'qwen3-0.6b'] as const;
/** Room for the context (KV cache) and llama.cpp itself besides the weights. */
const OVERHEAD_BYTES = 700_000_000;

/**
 * The largest catalog model that fits this machine: its weights plus room for the context must fit in the
 * GPU's memory, or (without a GPU) in half the RAM and what is free; on a CPU, fewer than 4 cores stop at
 * 1.7B and fewer than 8 at 4B, so answers come at a readable speed. Falls back to the smallest.
 */
export function recommendModel(
  machine: MachineFacts,
  catalog: readonly CatalogModel[] = MODEL_CATALOG,
): ModelRecommendation {
  const ladder = LADDER.flatMap((name) => catalog.filter((model) => model.name === name));
  const budget = memoryBudget(machine);
  const speedCap = machine.gpu === false ? cpuSizeCap(machine.cores) : Number.POSITIVE_INFINITY;
  const fits = ladder.find(
    (model) => model.sizeBytes + OVERHEAD_BYTES <= budget && model.sizeBytes <= speedCap,
  );
  const model = fits ?? ladder.at(-1) ?? catalog[0];
  if (model === undefined) throw new Error('the model catalog is empty');
  return { model, reason: describeMachine(machine) };
}

function memoryBudget(machine: MachineFacts): number {
  if (machine.gpu !== false && machine.vramBytes !== undefined && machine.vramBytes > 0)
    return machine.vramBytes * 0.9;
  return Math.min(machine.totalMemoryBytes / 2, machine.freeMemoryBytes * 0.8);
}

/** The largest file a CPU with this many cores runs at a readable speed. */
function cpuSizeCap(cores: number): number {
  if (cores < 4) return 2_000_000_000;
  if (cores < 8) return 3_000_000_000;
  return Number.POSITIVE_INFINITY;
}

/** `16.0 GB RAM (9.1 GB free), 8 cores, no GPU` or `…, cuda GPU with 8.0 GB`. */
export function describeMachine(machine: MachineFacts): string {
  const gpu =
    machine.gpu === false
      ? 'no GPU'
      : `${machine.gpu} GPU${machine.vramBytes === undefined ? '' : ` with ${formatBytes(machine.vramBytes)}`}`;
  const cores = machine.cores === 1 ? '1 core' : `${machine.cores} cores`;
  return `${formatBytes(machine.totalMemoryBytes)} RAM (${formatBytes(machine.freeMemoryBytes)} free), ${cores}, ${gpu}`;
}
