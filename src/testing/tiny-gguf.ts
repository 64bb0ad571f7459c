import { writeFile } from 'node:fs/promises';

/** A ChatML chat template (Jinja), which node-llama-cpp resolves to its `ChatMLChatWrapper`. */
export const TINY_GGUF_CHATML_TEMPLATE =
  "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";

/** Options of `createTinyGguf`; every field has a small default that loads and runs in milliseconds. */
export interface TinyGgufOptions {
  /** Seed of the random weights; the same seed gives the same file, byte for byte (default 1). */
  readonly seed?: number;
  /** Width of the hidden state (default 64). */
  readonly embeddingLength?: number;
  /** Number of transformer blocks (default 1). */
  readonly layerCount?: number;
  /** Attention heads; must divide `embeddingLength` (default 4). */
  readonly headCount?: number;
  /** Width of the feed-forward layer (default 128). */
  readonly feedForwardLength?: number;
  /** Context length the model claims to be trained on (default 4096). */
  readonly contextLength?: number;
  /** Jinja chat template stored as `tokenizer.chat_template` (default ChatML); `null` stores none. */
  readonly chatTemplate?: string | null;
  /** `general.name` of the model (default `tiny-random-llama`). */
  readonly name?: string;
}

/** Token ids of the special tokens in every tiny model; ids 0-255 are the 256 bytes. */
export const TINY_GGUF_TOKENS = { endOfText: 256, imStart: 257, imEnd: 258 } as const;

const SPECIAL_TOKENS = ['<|endoftext|>', '<|im_start|>', '<|im_end|>'] as const;
const ALIGNMENT_BYTES = 32;
const TOKEN_TYPE_NORMAL = 1;
const TOKEN_TYPE_CONTROL = 3;
const GGML_TYPE_F32 = 0;

// GGUF metadata value types (gguf.h).
const GGUF_UINT32 = 4;
const GGUF_INT32 = 5;
const GGUF_FLOAT32 = 6;
const GGUF_BOOL = 7;
const GGUF_STRING = 8;
const GGUF_ARRAY = 9;

type MetadataValue =
  | { readonly type: 'u32'; readonly value: number }
  | { readonly type: 'f32'; readonly value: number }
  | { readonly type: 'bool'; readonly value: boolean }
  | { readonly type: 'string'; readonly value: string }
  | { readonly type: 'strings'; readonly value: readonly string[] }
  | { readonly type: 'i32s'; readonly value: readonly number[] };

interface TensorSpec {
  readonly name: string;
  /** GGML order: `dimensions[0]` is the contiguous (fastest-varying) one. */
  readonly dimensions: readonly number[];
  readonly data: Float32Array;
}

interface Shape {
  readonly embedding: number;
  readonly layers: number;
  readonly heads: number;
  readonly feedForward: number;
  readonly context: number;
  readonly vocabulary: number;
}

/**
 * Builds a tiny, valid GGUF v3 file of a `llama`-architecture model with random F32 weights and a byte-level
 * GPT-2 vocabulary (256 byte tokens plus `<|endoftext|>`, `<|im_start|>`, `<|im_end|>`). Only printable ASCII
 * tokens get non-zero output weights, so greedy generation always yields printable text and never ends early.
 */
export function createTinyGguf(options: TinyGgufOptions = {}): Uint8Array {
  const shape = resolveShape(options);
  const random = seededRandom(options.seed ?? 1);
  const metadata = buildMetadata(shape, options);
  const tensors = buildTensors(shape, random);
  return encodeGguf(metadata, tensors);
}

/** Writes `createTinyGguf(options)` to `path`. */
export async function writeTinyGguf(path: string, options: TinyGgufOptions = {}): Promise<void> {
  await writeFile(path, createTinyGguf(options));
}

function resolveShape(options: TinyGgufOptions): Shape {
  const shape: Shape = {
    embedding: options.embeddingLength ?? 64,
    layers: options.layerCount ?? 1,
    heads: options.headCount ?? 4,
    feedForward: options.feedForwardLength ?? 128,
    context: options.contextLength ?? 4096,
    vocabulary: 256 + SPECIAL_TOKENS.length,
  };
  if (shape.embedding % shape.heads !== 0) {
    throw new RangeError(`headCount ${shape.heads} must divide embeddingLength ${shape.embedding}`);
  }
  return shape;
}

function buildMetadata(shape: Shape, options: TinyGgufOptions): ReadonlyMap<string, MetadataValue> {
  const u32 = (value: number): MetadataValue => ({ type: 'u32', value });
  const entries: [string, MetadataValue][] = [
    ['general.architecture', { type: 'string', value: 'llama' }],
    ['general.name', { type: 'string', value: options.name ?? 'tiny-random-llama' }],
    ['general.alignment', u32(ALIGNMENT_BYTES)],
    ['general.file_type', u32(0)],
    ['llama.context_length', u32(shape.context)],
    ['llama.embedding_length', u32(shape.embedding)],
    ['llama.block_count', u32(shape.layers)],
    ['llama.feed_forward_length', u32(shape.feedForward)],
    ['llama.attention.head_count', u32(shape.heads)],
    ['llama.attention.head_count_kv', u32(shape.heads)],
    ['llama.attention.layer_norm_rms_epsilon', { type: 'f32', value: 1e-5 }],
    ['llama.rope.dimension_count', u32(shape.embedding / shape.heads)],
    ['llama.rope.freq_base', { type: 'f32', value: 10_000 }],
    ['llama.vocab_size', u32(shape.vocabulary)],
    ...tokenizerMetadata(),
  ];
  const template =
    options.chatTemplate === undefined ? TINY_GGUF_CHATML_TEMPLATE : options.chatTemplate;
  if (template !== null)
    entries.push(['tokenizer.chat_template', { type: 'string', value: template }]);
  return new Map(entries);
}

function tokenizerMetadata(): [string, MetadataValue][] {
  const byteTokens = gpt2ByteAlphabet();
  const tokenTypes = [
    ...byteTokens.map(() => TOKEN_TYPE_NORMAL),
    ...SPECIAL_TOKENS.map(() => TOKEN_TYPE_CONTROL),
  ];
  return [
    ['tokenizer.ggml.model', { type: 'string', value: 'gpt2' }],
    ['tokenizer.ggml.pre', { type: 'string', value: 'default' }],
    ['tokenizer.ggml.tokens', { type: 'strings', value: [...byteTokens, ...SPECIAL_TOKENS] }],
    ['tokenizer.ggml.token_type', { type: 'i32s', value: tokenTypes }],
    ['tokenizer.ggml.merges', { type: 'strings', value: [] }],
    ['tokenizer.ggml.bos_token_id', { type: 'u32', value: TINY_GGUF_TOKENS.endOfText }],
    ['tokenizer.ggml.eos_token_id', { type: 'u32', value: TINY_GGUF_TOKENS.imEnd }],
    ['tokenizer.ggml.add_bos_token', { type: 'bool', value: false }],
  ];
}

/** GPT-2's byte-to-character table: the token for byte `b` is the character at index `b`. */
function gpt2ByteAlphabet(): string[] {
  const printable = (byte: number): boolean =>
    (byte >= 0x21 && byte <= 0x7e) ||
    (byte >= 0xa1 && byte <= 0xac) ||
    (byte >= 0xae && byte <= 0xff);
  const alphabet: string[] = [];
  let shifted = 0;
  for (let byte = 0; byte < 256; byte++) {
    alphabet.push(String.fromCodePoint(printable(byte) ? byte : 256 + shifted++));
  }
  return alphabet;
}

function buildTensors(shape: Shape, random: () => number): TensorSpec[] {
  const { embedding, feedForward, vocabulary } = shape;
  const matrix = (name: string, columns: number, rows: number): TensorSpec => ({
    name,
    dimensions: [columns, rows],
    data: randomFloats(columns * rows, random, 1 / Math.sqrt(columns)),
  });
  const norm = (name: string): TensorSpec => ({
    name,
    dimensions: [embedding],
    data: new Float32Array(embedding).fill(1),
  });
  const tensors: TensorSpec[] = [
    vocabularyMatrix('token_embd.weight', embedding, vocabulary, random),
    norm('output_norm.weight'),
    vocabularyMatrix('output.weight', embedding, vocabulary, random),
  ];
  for (let layer = 0; layer < shape.layers; layer++) {
    const block = `blk.${layer}`;
    tensors.push(
      norm(`${block}.attn_norm.weight`),
      matrix(`${block}.attn_q.weight`, embedding, embedding),
      matrix(`${block}.attn_k.weight`, embedding, embedding),
      matrix(`${block}.attn_v.weight`, embedding, embedding),
      matrix(`${block}.attn_output.weight`, embedding, embedding),
      norm(`${block}.ffn_norm.weight`),
      matrix(`${block}.ffn_gate.weight`, embedding, feedForward),
      matrix(`${block}.ffn_up.weight`, embedding, feedForward),
      matrix(`${block}.ffn_down.weight`, feedForward, embedding),
    );
  }
  return tensors;
}

/** One row per token; rows of tokens other than printable ASCII stay zero, so they never win a greedy pick. */
function vocabularyMatrix(
  name: string,
  embedding: number,
  vocabulary: number,
  random: () => number,
): TensorSpec {
  const data = new Float32Array(embedding * vocabulary);
  for (let token = 0x20; token <= 0x7e; token++) {
    for (let column = 0; column < embedding; column++) {
      data[token * embedding + column] = (random() * 2 - 1) * 0.5;
    }
  }
  return { name, dimensions: [embedding, vocabulary], data };
}

function randomFloats(count: number, random: () => number, scale: number): Float32Array {
  const data = new Float32Array(count);
  for (let index = 0; index < count; index++) data[index] = (random() * 2 - 1) * scale;
  return data;
}

/** Mulberry32: a tiny, fast, seedable generator of floats in [0, 1). */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Serialises a GGUF v3 file: header, metadata, tensor infos, padding, then the aligned tensor data. */
function encodeGguf(
  metadata: ReadonlyMap<string, MetadataValue>,
  tensors: readonly TensorSpec[],
): Uint8Array {
  const out = new ByteWriter();
  out.bytes(new TextEncoder().encode('GGUF'));
  out.u32(3);
  out.u64(tensors.length);
  out.u64(metadata.size);
  for (const [key, value] of metadata) {
    out.string(key);
    writeMetadataValue(out, value);
  }
  let offset = 0;
  for (const tensor of tensors) {
    out.string(tensor.name);
    out.u32(tensor.dimensions.length);
    for (const dimension of tensor.dimensions) out.u64(dimension);
    out.u32(GGML_TYPE_F32);
    out.u64(offset);
    offset = alignUp(offset + tensor.data.byteLength);
  }
  out.pad();
  for (const tensor of tensors) {
    out.bytes(new Uint8Array(tensor.data.buffer, tensor.data.byteOffset, tensor.data.byteLength));
    out.pad();
  }
  return out.finish();
}

function writeMetadataValue(out: ByteWriter, value: MetadataValue): void {
  switch (value.type) {
    case 'u32':
      out.u32(GGUF_UINT32);
      out.u32(value.value);
      return;
    case 'f32':
      out.u32(GGUF_FLOAT32);
      out.f32(value.value);
      return;
    case 'bool':
      out.u32(GGUF_BOOL);
      out.u8(value.value ? 1 : 0);
      return;
    case 'string':
      out.u32(GGUF_STRING);
      out.string(value.value);
      return;
    case 'strings':
      out.u32(GGUF_ARRAY);
      out.u32(GGUF_STRING);
      out.u64(value.value.length);
      for (const item of value.value) out.string(item);
      return;
    case 'i32s':
      out.u32(GGUF_ARRAY);
      out.u32(GGUF_INT32);
      out.u64(value.value.length);
      for (const item of value.value) out.i32(item);
      return;
  }
}

function alignUp(offset: number): number {
  return Math.ceil(offset / ALIGNMENT_BYTES) * ALIGNMENT_BYTES;
}

/** Little-endian binary output that grows as needed. */
class ByteWriter {
  #buffer = new Uint8Array(1 << 16);
  #view = new DataView(this.#buffer.buffer);
  #length = 0;

  u8(value: number): void {
    this.#reserve(1).setUint8(this.#length - 1, value);
  }

  u32(value: number): void {
    this.#reserve(4).setUint32(this.#length - 4, value, true);
  }

  i32(value: number): void {
    this.#reserve(4).setInt32(this.#length - 4, value, true);
  }

  f32(value: number): void {
    this.#reserve(4).setFloat32(this.#length - 4, value, true);
  }

  u64(value: number): void {
    this.#reserve(8).setBigUint64(this.#length - 8, BigInt(value), true);
  }

  string(value: string): void {
    const encoded = new TextEncoder().encode(value);
    this.u64(encoded.length);
    this.bytes(encoded);
  }

  bytes(value: Uint8Array): void {
    this.#reserve(value.length);
    this.#buffer.set(value, this.#length - value.length);
  }

  /** Appends zero bytes up to the next multiple of the GGUF alignment. */
  pad(): void {
    this.#reserve(alignUp(this.#length) - this.#length);
  }

  finish(): Uint8Array {
    return this.#buffer.slice(0, this.#length);
  }

  /** Grows the buffer for `count` more bytes, advances the length and returns the view to write through. */
  #reserve(count: number): DataView {
    const needed = this.#length + count;
    if (needed > this.#buffer.length) {
      const grown = new Uint8Array(Math.max(needed, this.#buffer.length * 2));
      grown.set(this.#buffer.subarray(0, this.#length));
      this.#buffer = grown;
      this.#view = new DataView(grown.buffer);
    }
    this.#length = needed;
    return this.#view;
  }
}
