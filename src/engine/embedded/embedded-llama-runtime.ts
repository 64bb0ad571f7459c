import { stat } from 'node:fs/promises';
import type {
  ChatWrapper,
  Llama,
  LlamaChat,
  LlamaContext,
  LlamaContextSequence,
  LlamaModel,
} from 'node-llama-cpp';
import { describeError, EngineError, type EngineErrorCode, JarvisError } from '../../core/index.js';
import {
  type ChatTemplateSource,
  checkChatWrapperType,
  resolveEmbeddedChatWrapper,
} from './embedded-llama-chat-wrapper.js';
import {
  isModuleNotFound,
  loadNodeLlamaCpp,
  type NodeLlamaCppModule,
} from './node-llama-cpp-loader.js';

export type { NodeLlamaCppModule } from './node-llama-cpp-loader.js';

/** How a user gets the embedded runtime. */
export const RUNTIME_INSTALL_ADVICE =
  'run `jarvis engines install embedded` (about 80 MB, into the OpenJarvis home), or `npm install node-llama-cpp@3.21.1` next to openjarvis';

/** Receives llama.cpp's log lines (`warn` and above). */
export type EmbeddedLlamaLogger = (level: string, message: string) => void;

/** What `loadRuntime` needs to know. */
export interface RuntimeOptions {
  readonly engineId: string;
  readonly modelPath: string;
  /** Offer llama.cpp's GPU backends (`auto`: used when one works here) or stay on the CPU. */
  readonly gpu: boolean;
  readonly threads: number;
  /** Tokens wanted; lowered to the model's trained context. Absent: what fits, at most `EMBEDDED_DEFAULT_MAX_CONTEXT_SIZE`. */
  readonly contextSize: number | undefined;
  readonly chatWrapper: string;
  readonly onLog: EmbeddedLlamaLogger | undefined;
  /**
   * An already started llama.cpp to load the model on, instead of starting one with `gpu`, `threads` as its
   * thread limit and `onLog` as its logger; it stays the caller's and is not disposed with the runtime.
   */
  readonly llama?: Llama;
}

/** What a loaded embedded model runs with, as chosen from the settings, the GGUF file and the machine. */
export interface EmbeddedRuntimeInfo {
  /** node-llama-cpp's chat wrapper type name, e.g. `chatML`, `llama3.1`, `jinjaTemplate`, `general`. */
  readonly chatWrapper: string;
  /** `gguf`: the model's own chat template; `config`: the configured wrapper; `fallback`: a guess (no usable template). */
  readonly chatTemplateSource: ChatTemplateSource;
  /** Why the GGUF's chat template was not used, when it is present but broken. */
  readonly chatTemplateError?: string;
  /** Context window in tokens: never more than `trainContextSize`, and what fits in free RAM / VRAM. */
  readonly contextSize: number;
  /** Context length the model was trained for (GGUF metadata). */
  readonly trainContextSize: number;
  /** CPU threads llama.cpp evaluates with. */
  readonly threads: number;
  /** The GPU backend in use (`cuda`, `vulkan`, `metal`), or false on the CPU only. */
  readonly gpu: string | false;
  /** Layers offloaded to the GPU (llama.cpp's fit for the free VRAM); 0 on the CPU only. */
  readonly gpuLayers: number;
  /** Layers of the model, so `gpuLayers` can be read as a share. */
  readonly totalLayers: number;
}

/**
 * Everything one loaded model needs: the module, llama.cpp, the model, one context sequence, the chat format and
 * the chat that generates on that sequence.
 */
export interface EmbeddedRuntime {
  readonly module: NodeLlamaCppModule;
  readonly llama: Llama;
  /** False when `llama` was passed in by the caller, who disposes it. */
  readonly ownsLlama: boolean;
  readonly model: LlamaModel;
  readonly context: LlamaContext;
  readonly sequence: LlamaContextSequence;
  readonly chatWrapper: ChatWrapper;
  /**
   * The LlamaChat every call without a forced tool call uses. node-llama-cpp's chat keeps no conversation between
   * calls (each call passes its whole history; the sequence holds the evaluated tokens, whose common prefix the
   * next call reuses), so one serves every conversation, as a LlamaChatSession keeps one.
   */
  readonly chat: LlamaChat;
  readonly info: EmbeddedRuntimeInfo;
}

/** Context size used when none is configured: the trained context, as far as memory allows, at most this. */
export const EMBEDDED_DEFAULT_MAX_CONTEXT_SIZE = 8192;

/**
 * Imports node-llama-cpp (beside openjarvis, else from the runtime folder); a missing or broken install becomes an
 * `EngineError` saying how to install it.
 */
export async function importNodeLlamaCpp(
  engineId: string,
  address: string,
): Promise<NodeLlamaCppModule> {
  try {
    return await loadNodeLlamaCpp();
  } catch (error) {
    throw new EngineError({
      code: 'engine_not_found',
      engineId,
      address,
      detail: isModuleNotFound(error)
        ? `the embedded runtime (node-llama-cpp) is not installed: ${RUNTIME_INSTALL_ADVICE}`
        : `the embedded runtime (node-llama-cpp) could not be loaded (${describeError(error)}); reinstall it: ${RUNTIME_INSTALL_ADVICE}`,
      cause: error,
    });
  }
}

/**
 * Starts llama.cpp (GPU backends when `gpu` is set and one works here), loads the GGUF model (layers offloaded
 * as far as free VRAM allows), creates its context (at most the trained context size, fitted to free memory)
 * and picks its chat format (the GGUF's template unless configured); on failure nothing stays allocated.
 */
export async function loadRuntime(options: RuntimeOptions): Promise<EmbeddedRuntime> {
  const module = await importNodeLlamaCpp(options.engineId, options.modelPath);
  const chatWrapperType = checkChatWrapperType(module, options.chatWrapper);
  checkCounts(options);
  await checkModelFile(options);
  const ownsLlama = options.llama === undefined;
  const llama = options.llama ?? (await startLlama(module, options));
  try {
    const model = await step(
      options,
      'engine_model_error',
      'the GGUF model could not be loaded',
      () => llama.loadModel({ modelPath: options.modelPath }),
    );
    try {
      return await prepareModel({ module, llama, ownsLlama, model }, chatWrapperType, options);
    } catch (error) {
      await model.dispose();
      throw error;
    }
  } catch (error) {
    if (ownsLlama) await llama.dispose();
    throw error;
  }
}

/** The parts of a runtime that exist once the model has loaded. */
type LoadedModel = Pick<EmbeddedRuntime, 'module' | 'llama' | 'ownsLlama' | 'model'>;

/** Creates the model's context and picks its chat format, then records what was chosen. */
async function prepareModel(
  loaded: LoadedModel,
  chatWrapperType: ReturnType<typeof checkChatWrapperType>,
  options: RuntimeOptions,
): Promise<EmbeddedRuntime> {
  const { module, llama, model } = loaded;
  const context = await step(options, 'engine_model_error', 'no context could be created', () =>
    model.createContext({
      contextSize: contextSizeOption(options.contextSize, model),
      threads: options.threads,
    }),
  );
  const chat = resolveEmbeddedChatWrapper(module, model, chatWrapperType, (message) =>
    options.onLog?.('warn', message),
  );
  const info: EmbeddedRuntimeInfo = {
    chatWrapper: chat.name,
    chatTemplateSource: chat.source,
    ...(chat.templateError === undefined ? {} : { chatTemplateError: chat.templateError }),
    contextSize: context.contextSize,
    trainContextSize: model.trainContextSize,
    threads: context.idealThreads,
    gpu: llama.gpu,
    gpuLayers: model.gpuLayers,
    totalLayers: model.fileInsights.totalLayers,
  };
  const sequence = context.getSequence();
  const llamaChat = new module.LlamaChat({ contextSequence: sequence, chatWrapper: chat.wrapper });
  return { ...loaded, context, sequence, chatWrapper: chat.wrapper, chat: llamaChat, info };
}

/**
 * The context size to ask node-llama-cpp for. Unset: `{ max }`, which it resolves to the largest size up to
 * min(trained context, `EMBEDDED_DEFAULT_MAX_CONTEXT_SIZE`) that fits in free RAM / VRAM. Configured: that size, lowered
 * to the trained context (more would run past what the model learned; llama.cpp only warns).
 */
export function contextSizeOption(
  configured: number | undefined,
  model: { readonly trainContextSize: number },
): number | { readonly max: number } {
  const trained = model.trainContextSize > 0 ? model.trainContextSize : undefined;
  if (configured === undefined)
    return {
      max: Math.min(
        EMBEDDED_DEFAULT_MAX_CONTEXT_SIZE,
        trained ?? EMBEDDED_DEFAULT_MAX_CONTEXT_SIZE,
      ),
    };
  return Math.min(configured, trained ?? configured);
}

function startLlama(module: NodeLlamaCppModule, options: RuntimeOptions): Promise<Llama> {
  return step(options, 'engine_unavailable', 'llama.cpp could not start on this machine', () =>
    module.getLlama({
      gpu: options.gpu ? 'auto' : false,
      build: 'never',
      progressLogs: false,
      maxThreads: options.threads,
      logLevel: module.LlamaLogLevel.warn,
      logger: (level, message) => options.onLog?.(level, message.trimEnd()),
    }),
  );
}

function checkCounts(options: RuntimeOptions): void {
  const counts = { threads: options.threads, contextSize: options.contextSize };
  for (const [name, value] of Object.entries(counts)) {
    if (value === undefined || (Number.isSafeInteger(value) && value > 0)) continue;
    throw new JarvisError({
      code: 'invalid_argument',
      message: `${name} must be a whole number above 0, got ${String(value)}`,
    });
  }
}

/** Frees the chat, the context, the model and llama.cpp (unless the caller passed it in). */
export async function disposeRuntime(runtime: EmbeddedRuntime): Promise<void> {
  runtime.chat.dispose({ disposeSequence: false });
  await runtime.sequence.dispose();
  await runtime.context.dispose();
  await runtime.model.dispose();
  if (runtime.ownsLlama) await runtime.llama.dispose();
}

async function checkModelFile(options: RuntimeOptions): Promise<void> {
  const found = await stat(options.modelPath).then(
    (info) => info.isFile(),
    () => false,
  );
  if (found) return;
  throw new EngineError({
    code: 'engine_model_error',
    engineId: options.engineId,
    address: options.modelPath,
    detail: 'the model file does not exist or is not a file; pass the path of a .gguf file',
  });
}

async function step<T>(
  options: RuntimeOptions,
  code: EngineErrorCode,
  what: string,
  action: () => Promise<T>,
): Promise<T> {
  try {
    return await action();
  } catch (error) {
    throw new EngineError({
      code,
      engineId: options.engineId,
      address: options.modelPath,
      detail: `${what}: ${describeError(error)}`,
      cause: error,
    });
  }
}
