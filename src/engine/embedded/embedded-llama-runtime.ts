import { stat } from 'node:fs/promises';
import type * as NodeLlamaCpp from 'node-llama-cpp';
import type {
  ChatWrapper,
  Llama,
  LlamaContext,
  LlamaContextSequence,
  LlamaModel,
  SpecializedChatWrapperTypeName,
} from 'node-llama-cpp';
import { describeError, EngineError, type EngineErrorCode, JarvisError } from '../../core/index.js';

/** The node-llama-cpp module, loaded on first use. */
export type NodeLlamaCppModule = typeof NodeLlamaCpp;

/** Receives llama.cpp's log lines (`warn` and above). */
export type EmbeddedLlamaLogger = (level: string, message: string) => void;

/** What `loadRuntime` needs to know. */
export interface RuntimeOptions {
  readonly engineId: string;
  readonly modelPath: string;
  readonly gpu: boolean;
  readonly threads: number;
  readonly contextSize: number | undefined;
  readonly chatWrapper: string;
  readonly onLog: EmbeddedLlamaLogger | undefined;
}

/** Everything one loaded model needs: the module, llama.cpp, the model, one context sequence, the chat format. */
export interface EmbeddedRuntime {
  readonly module: NodeLlamaCppModule;
  readonly llama: Llama;
  readonly model: LlamaModel;
  readonly context: LlamaContext;
  readonly sequence: LlamaContextSequence;
  readonly chatWrapper: ChatWrapper;
}

/** Context size used when none is configured: as large as memory allows, at most this many tokens. */
const DEFAULT_MAX_CONTEXT_TOKENS = 8192;

/** Imports node-llama-cpp; a missing or broken install becomes an `EngineError` saying how to install it. */
export async function importNodeLlamaCpp(
  engineId: string,
  address: string,
): Promise<NodeLlamaCppModule> {
  try {
    return await import('node-llama-cpp');
  } catch (error) {
    throw new EngineError({
      code: 'engine_not_found',
      engineId,
      address,
      detail:
        `the optional package node-llama-cpp could not be loaded (${describeError(error)}); ` +
        'install it with `npm install node-llama-cpp@3.21.1`',
      cause: error,
    });
  }
}

/** Starts llama.cpp, loads the GGUF model and creates its context; on failure nothing stays allocated. */
export async function loadRuntime(options: RuntimeOptions): Promise<EmbeddedRuntime> {
  const module = await importNodeLlamaCpp(options.engineId, options.modelPath);
  const chatWrapperType = checkChatWrapperType(module, options.chatWrapper);
  await checkModelFile(options);
  const llama = await step(
    options,
    'engine_unavailable',
    'llama.cpp could not start on this machine',
    () =>
      module.getLlama({
        gpu: options.gpu ? 'auto' : false,
        build: 'never',
        progressLogs: false,
        maxThreads: options.threads,
        logLevel: module.LlamaLogLevel.warn,
        logger: (level, message) => options.onLog?.(level, message.trimEnd()),
      }),
  );
  try {
    const model = await step(
      options,
      'engine_model_error',
      'the GGUF model could not be loaded',
      () => llama.loadModel({ modelPath: options.modelPath }),
    );
    const context = await step(options, 'engine_model_error', 'no context could be created', () =>
      model.createContext({
        contextSize: options.contextSize ?? { max: DEFAULT_MAX_CONTEXT_TOKENS },
      }),
    );
    const chatWrapper = module.resolveChatWrapper(model, {
      type: chatWrapperType,
      warningLogs: false,
    });
    return { module, llama, model, context, sequence: context.getSequence(), chatWrapper };
  } catch (error) {
    await llama.dispose();
    throw error;
  }
}

/** Frees the context, the model and llama.cpp. */
export async function disposeRuntime(runtime: EmbeddedRuntime): Promise<void> {
  await runtime.sequence.dispose();
  await runtime.context.dispose();
  await runtime.model.dispose();
  await runtime.llama.dispose();
}

function checkChatWrapperType(
  module: NodeLlamaCppModule,
  name: string,
): 'auto' | SpecializedChatWrapperTypeName {
  const known: readonly string[] = module.specializedChatWrapperTypeNames;
  if (name === 'auto' || known.includes(name))
    return name as 'auto' | SpecializedChatWrapperTypeName;
  throw new JarvisError({
    code: 'invalid_argument',
    message: `unknown chatWrapper '${name}'; use 'auto' or one of: ${known.join(', ')}`,
  });
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
