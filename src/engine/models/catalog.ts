/** One model of the built-in catalog: where it lives on the hub and what the file should be. */
export interface CatalogModel {
  /** Short name used on the command line, e.g. `qwen3-1.7b`. */
  readonly name: string;
  /** Hugging Face repository, `owner/repo`. */
  readonly repository: string;
  /** GGUF file inside the repository. */
  readonly file: string;
  /** Quantization of the file, e.g. `Q8_0`. */
  readonly quantization: string;
  /** Size of the file in bytes (approximate unless `pinned`). */
  readonly sizeBytes: number;
  /** SHA-256 of the file (hex), when recorded. */
  readonly sha256: string | undefined;
  /** True when `sizeBytes` and `sha256` were checked against the hub; only then are they enforced. */
  readonly pinned: boolean;
  /** SPDX-like licence id of the weights. */
  readonly license: string;
}

/**
 * Small models that call tools well at their size. Sizes are approximate and no SHA-256 is recorded yet
 * (`pinned: false`): a pull then verifies against the SHA-256 and size the hub sends (`x-linked-etag`,
 * `x-linked-size`). Pin an entry only with values read from the hub.
 */
export const MODEL_CATALOG: readonly CatalogModel[] = [
  {
    name: 'qwen3-0.6b',
    repository: 'Qwen/Qwen3-0.6B-GGUF',
    file: 'Qwen3-0.6B-Q8_0.gguf',
    quantization: 'Q8_0',
    sizeBytes: 639_000_000,
    sha256: undefined,
    pinned: false,
    license: 'apache-2.0',
  },
  {
    name: 'qwen3-1.7b',
    repository: 'Qwen/Qwen3-1.7B-GGUF',
    file: 'Qwen3-1.7B-Q8_0.gguf',
    quantization: 'Q8_0',
    sizeBytes: 1_830_000_000,
    sha256: undefined,
    pinned: false,
    license: 'apache-2.0',
  },
  {
    name: 'qwen3-4b',
    repository: 'Qwen/Qwen3-4B-GGUF',
    file: 'Qwen3-4B-Q4_K_M.gguf',
    quantization: 'Q4_K_M',
    sizeBytes: 2_500_000_000,
    sha256: undefined,
    pinned: false,
    license: 'apache-2.0',
  },
  {
    name: 'qwen3-8b',
    repository: 'Qwen/Qwen3-8B-GGUF',
    file: 'Qwen3-8B-Q4_K_M.gguf',
    quantization: 'Q4_K_M',
    sizeBytes: 5_030_000_000,
    sha256: undefined,
    pinned: false,
    license: 'apache-2.0',
  },
  {
    name: 'llama3.2-3b',
    repository: 'bartowski/Llama-3.2-3B-Instruct-GGUF',
    file: 'Llama-3.2-3B-Instruct-Q4_K_M.gguf',
    quantization: 'Q4_K_M',
    sizeBytes: 2_020_000_000,
    sha256: undefined,
    pinned: false,
    license: 'llama3.2',
  },
];
