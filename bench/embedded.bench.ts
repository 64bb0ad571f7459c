// Embedded generation benchmark (issue 15): EmbeddedLlamaEngine next to node-llama-cpp's own chat loop
// (LlamaChatSession.prompt) on the same GGUF and settings, in the same run. Goals: tokens per second >= 0.95x and
// time to first token <= 1.1x of node-llama-cpp's. Run alone: `npm run build && node --import tsx bench/embedded.bench.ts`.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Message, StreamChunk } from '../src/index.js';
import { library, testing } from './library.js';

/** Options of `embeddedBench`. */
export interface EmbeddedBenchOptions {
  /** Fewer samples. */
  readonly quick?: boolean;
  /** llama.cpp threads on both sides (default: the cores less one, at least 1, leaving one to the JS thread). */
  readonly threads?: number;
}

/** One timed generation. */
interface Sample {
  readonly ttftMs: number;
  readonly totalMs: number;
  readonly tokens: number;
  /** Side A only: creating the LlamaChatSession for the fresh conversation (outside its TTFT and total). */
  readonly setupMs?: number;
}

/** Shape of the random model: ~35 MB of F32 weights, about 4 ms per token on one core (0.5 s per 128 tokens). */
const MODEL_SHAPE = {
  seed: 7,
  embeddingLength: 512,
  layerCount: 6,
  headCount: 8,
  feedForwardLength: 1536,
  contextLength: 4096,
  name: 'bench-random-llama',
} as const;
const CONTEXT_SIZE = 1024;
const MAX_TOKENS = 128;
/** Tokens of the extra short calls that sample TTFT. */
const TTFT_MAX_TOKENS = 4;
// node-llama-cpp's JS (sampling, detokenizing, stop triggers) runs on the main thread between tokens; with every core
// busy in llama.cpp too, preemption makes samples swing 10x on a small machine (seen on 2 cores), so one is left free.
const DEFAULT_THREADS = Math.max(1, availableParallelism() - 1);
const SYSTEM_PROMPT = 'You are a helpful assistant. Answer briefly.';
const PROMPT = 'Write a short story about a lighthouse keeper who finds a message in a bottle.';
const MESSAGES: readonly Message[] = [
  { role: 'system', content: SYSTEM_PROMPT },
  { role: 'user', content: PROMPT },
];

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? 0)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

/** Side A: node-llama-cpp's chat loop, loaded exactly as the engine loads its runtime. */
async function loadBaseline(modelPath: string, threads: number) {
  const llamaCpp = await import('node-llama-cpp');
  const llama = await llamaCpp.getLlama({
    gpu: false,
    build: 'never',
    progressLogs: false,
    maxThreads: threads,
    logLevel: llamaCpp.LlamaLogLevel.warn,
  });
  const model = await llama.loadModel({ modelPath });
  // The same settings the engine passes (threads as well, although the llama's maxThreads already gives it).
  const context = await model.createContext({ contextSize: CONTEXT_SIZE, threads });
  const sequence = context.getSequence();
  const chatWrapper = llamaCpp.resolveChatWrapper(model, { type: 'auto', warningLogs: false });
  const countTokens = (text: string): number => model.tokenize(text).length;
  const run = async (maxTokens = MAX_TOKENS): Promise<{ sample: Sample; text: string }> => {
    const setupStarted = performance.now();
    const session = new llamaCpp.LlamaChatSession({
      contextSequence: sequence,
      chatWrapper,
      systemPrompt: SYSTEM_PROMPT,
      autoDisposeSequence: false,
    });
    const started = performance.now();
    const setupMs = started - setupStarted;
    let firstMs: number | undefined;
    try {
      const text = await session.prompt(PROMPT, {
        maxTokens,
        temperature: 0,
        onTextChunk: () => {
          firstMs ??= performance.now();
        },
      });
      const totalMs = performance.now() - started;
      const ttftMs = (firstMs ?? performance.now()) - started;
      return { sample: { ttftMs, totalMs, tokens: countTokens(text), setupMs }, text };
    } finally {
      session.dispose({ disposeSequence: false });
    }
  };
  const close = async () => {
    await sequence.dispose();
    await context.dispose();
    await model.dispose();
    await llama.dispose();
  };
  return { run, countTokens, chatWrapperName: chatWrapper.wrapperName, close };
}

/** Side B: our engine from the built library, streamed, with the same conversation. */
function loadEngine(modelPath: string, threads: number, countTokens: (text: string) => number) {
  const engine = new library.EmbeddedLlamaEngine({
    modelPath,
    contextSize: CONTEXT_SIZE,
    threads,
    gpu: false,
    chatWrapper: 'auto',
  });
  const run = async (
    maxTokens = MAX_TOKENS,
  ): Promise<{ sample: Sample; text: string; usageTokens: number }> => {
    const started = performance.now();
    let firstMs: number | undefined;
    let text = '';
    let usageTokens = -1;
    for await (const chunk of engine.stream(MESSAGES, {
      model: 'bench',
      temperature: 0,
      maxTokens,
    }) as AsyncIterable<StreamChunk>) {
      if (chunk.type === 'text_delta') {
        firstMs ??= performance.now();
        text += chunk.text;
      } else if (chunk.type === 'end') usageTokens = chunk.usage.completionTokens;
    }
    const totalMs = performance.now() - started;
    const ttftMs = (firstMs ?? performance.now()) - started;
    return { sample: { ttftMs, totalMs, tokens: countTokens(text) }, text, usageTokens };
  };
  return { run, close: () => engine.close() };
}

interface SideSummary {
  readonly tokensPerSecond: number;
  readonly decodeTokensPerSecond: number;
  readonly ttftMs: number;
  readonly setupMs: number;
  readonly totalMs: number;
  readonly minTotalMs: number;
  readonly maxTotalMs: number;
  readonly tokens: number;
}

function summarise(samples: readonly Sample[]): SideSummary {
  return {
    tokensPerSecond: median(samples.map((s) => (s.tokens * 1000) / s.totalMs)),
    decodeTokensPerSecond: median(
      samples.map((s) => ((s.tokens - 1) * 1000) / Math.max(0.001, s.totalMs - s.ttftMs)),
    ),
    ttftMs: median(samples.map((s) => s.ttftMs)),
    setupMs: median(samples.map((s) => s.setupMs ?? 0)),
    totalMs: median(samples.map((s) => s.totalMs)),
    minTotalMs: Math.min(...samples.map((s) => s.totalMs)),
    maxTotalMs: Math.max(...samples.map((s) => s.totalMs)),
    tokens: median(samples.map((s) => s.tokens)),
  };
}

function formatReport(
  baseline: SideSummary,
  ours: SideSummary,
  samples: number,
  setting: { readonly chatWrapper: string; readonly threads: number },
): string {
  const row = (name: string, side: SideSummary, ratio: boolean) =>
    [
      name.padEnd(42),
      side.tokensPerSecond.toFixed(1).padStart(8),
      side.decodeTokensPerSecond.toFixed(1).padStart(10),
      side.ttftMs.toFixed(1).padStart(9),
      side.totalMs.toFixed(0).padStart(9),
      `${side.minTotalMs.toFixed(0)}-${side.maxTotalMs.toFixed(0)}`.padStart(11),
      String(side.tokens).padStart(7),
      ratio
        ? `  ${(side.tokensPerSecond / baseline.tokensPerSecond).toFixed(3)}x tok/s, ${(side.ttftMs / baseline.ttftMs).toFixed(3)}x TTFT (fastest call: ${(baseline.minTotalMs / side.minTotalMs).toFixed(3)}x tok/s)`
        : '  1.00x (baseline)',
    ].join('  ');
  const shape = `${MODEL_SHAPE.embeddingLength} wide, ${MODEL_SHAPE.layerCount} layers, ff ${MODEL_SHAPE.feedForwardLength}, F32`;
  return [
    `## Embedded generation: ${MAX_TOKENS} tokens, greedy, random llama GGUF (${shape}), context ${CONTEXT_SIZE}, ${setting.threads} threads, ${setting.chatWrapper}, ${samples} samples per side (interleaved)`,
    `${'case'.padEnd(42)}  ${'tok/s'.padStart(8)}  ${'decode t/s'.padStart(10)}  ${'TTFT ms'.padStart(9)}  ${'total ms'.padStart(9)}  ${'min-max ms'.padStart(11)}  ${'tokens'.padStart(7)}  ratio`,
    row('node-llama-cpp LlamaChatSession.prompt', baseline, false),
    row('EmbeddedLlamaEngine.stream (built)', ours, true),
    `node-llama-cpp side: creating the LlamaChatSession (not in its TTFT above; the engine keeps one LlamaChat, and everything else it does per call is in its TTFT) takes ${baseline.setupMs.toFixed(2)} ms; with it, the TTFT ratio is ${(ours.ttftMs / (baseline.ttftMs + baseline.setupMs)).toFixed(3)}x`,
    'TTFT: node-llama-cpp at its onTextChunk callback; the engine where its stream consumer receives the first text_delta',
    'goal: tok/s >= 0.95x and TTFT <= 1.1x of node-llama-cpp (tok/s = tokens / whole call; decode t/s excludes the first token)',
  ].join('\n');
}

/**
 * More TTFT samples than the full generations give (TTFT is a few ms, so one preempted sample moves a median of
 * 15): short generations, in pairs with alternating order; reports both medians and the median of the pair ratios.
 */
async function measureTtft(
  runA: (maxTokens: number) => Promise<{ readonly sample: Sample }>,
  runB: (maxTokens: number) => Promise<{ readonly sample: Sample }>,
  pairs: number,
): Promise<string> {
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < pairs; i += 1) {
    if (i % 2 === 0) {
      a.push((await runA(TTFT_MAX_TOKENS)).sample.ttftMs);
      b.push((await runB(TTFT_MAX_TOKENS)).sample.ttftMs);
    } else {
      b.push((await runB(TTFT_MAX_TOKENS)).sample.ttftMs);
      a.push((await runA(TTFT_MAX_TOKENS)).sample.ttftMs);
    }
  }
  const ratios = a.map((value, index) => (b[index] ?? 0) / value);
  return `TTFT alone (${pairs} pairs of ${TTFT_MAX_TOKENS}-token calls): node-llama-cpp ${median(a).toFixed(2)} ms, engine ${median(b).toFixed(2)} ms: ${(median(b) / median(a)).toFixed(3)}x of medians, ${median(ratios).toFixed(3)}x median pair ratio`;
}

/** Loads both sides on one GGUF, warms them up, measures interleaved samples and returns the report text. */
export async function embeddedBench(options: EmbeddedBenchOptions = {}): Promise<string> {
  const samples = options.quick === true ? 5 : 15;
  const directory = mkdtempSync(join(tmpdir(), 'jarvis-embedded-bench-'));
  const modelPath = join(directory, 'bench.gguf');
  writeFileSync(modelPath, testing.createTinyGguf(MODEL_SHAPE));
  const threads = options.threads ?? DEFAULT_THREADS;
  const baseline = await loadBaseline(modelPath, threads);
  const ours = loadEngine(modelPath, threads, baseline.countTokens);
  try {
    const warmA = await baseline.run();
    const warmB = await ours.run();
    if (warmA.text !== warmB.text || warmA.sample.tokens !== MAX_TOKENS)
      throw new Error(
        `the two sides must produce the same ${MAX_TOKENS} tokens (got ${warmA.sample.tokens} and ${warmB.sample.tokens}, texts ${warmA.text === warmB.text ? 'equal' : 'differ'})`,
      );
    if (warmB.usageTokens !== MAX_TOKENS)
      throw new Error(
        `the engine reported ${warmB.usageTokens} completion tokens, not ${MAX_TOKENS}`,
      );
    const a: Sample[] = [];
    const b: Sample[] = [];
    for (let i = 0; i < samples; i += 1) {
      // Alternate which side goes first so drift (frequency, other load) hits both alike.
      if (i % 2 === 0) {
        a.push((await baseline.run()).sample);
        b.push((await ours.run()).sample);
      } else {
        b.push((await ours.run()).sample);
        a.push((await baseline.run()).sample);
      }
    }
    const ttft = await measureTtft(baseline.run, ours.run, samples * 3);
    return `${formatReport(summarise(a), summarise(b), samples, { chatWrapper: baseline.chatWrapperName, threads })}\n${ttft}`;
  } finally {
    await ours.close();
    await baseline.close();
    rmSync(directory, { recursive: true, force: true });
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const threads = process.argv
    .find((arg) => arg.startsWith('--threads='))
    ?.slice('--threads='.length);
  console.log(
    await embeddedBench({
      quick: process.argv.includes('--quick'),
      ...(threads === undefined ? {} : { threads: Number(threads) }),
    }),
  );
}
