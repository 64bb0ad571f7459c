import type * as NodeLlamaCpp from 'node-llama-cpp';
import type { ChatWrapper, LlamaModel, SpecializedChatWrapperTypeName } from 'node-llama-cpp';
import { describeError, JarvisError } from '../../core/index.js';

/** Where the chat format of a loaded model came from. */
export type ChatTemplateSource = 'gguf' | 'config' | 'fallback';

/** The chat format chosen for a model, and why. */
export interface ResolvedChatWrapper {
  readonly wrapper: ChatWrapper;
  /** node-llama-cpp's type name of the wrapper (`chatML`, `llama3.1`, `jinjaTemplate`, `general`, ...). */
  readonly name: string;
  /** `gguf`: from the model's `tokenizer.chat_template`; `config`: named in the settings; `fallback`: guessed. */
  readonly source: ChatTemplateSource;
  /** Why the GGUF's chat template could not be used, when it was present but broken. */
  readonly templateError?: string;
}

/** Checks a configured chat wrapper name: `auto` or one of node-llama-cpp's specialized wrapper names. */
export function checkChatWrapperType(
  module: typeof NodeLlamaCpp,
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

/**
 * Picks the chat format: the configured wrapper, else the one the GGUF's Jinja chat template describes
 * (a matching built-in wrapper, or the template itself), else node-llama-cpp's guess from the model's name and
 * architecture. A broken template is reported through `onWarning` instead of node-llama-cpp's console output.
 */
export function resolveEmbeddedChatWrapper(
  module: typeof NodeLlamaCpp,
  model: LlamaModel,
  type: 'auto' | SpecializedChatWrapperTypeName,
  onWarning: (message: string) => void,
): ResolvedChatWrapper {
  if (type !== 'auto') {
    const wrapper = module.resolveChatWrapper(model, { type, warningLogs: false });
    return { wrapper, name: chatWrapperName(module, wrapper), source: 'config' };
  }
  const template = model.fileInfo.metadata.tokenizer?.chat_template;
  const hasTemplate = typeof template === 'string' && template.trim() !== '';
  try {
    const wrapper = module.resolveChatWrapper(model, {
      warningLogs: false,
      fallbackToOtherWrappersOnJinjaError: false,
    });
    const source = hasTemplate ? 'gguf' : 'fallback';
    return { wrapper, name: chatWrapperName(module, wrapper), source };
  } catch (error) {
    const templateError = describeError(error);
    const wrapper = module.resolveChatWrapper(model, { warningLogs: false, noJinja: true });
    const name = chatWrapperName(module, wrapper);
    onWarning(
      `the model's chat template cannot be used (${templateError}); using the '${name}' chat format instead`,
    );
    return { wrapper, name, source: 'fallback', templateError };
  }
}

/** The type name node-llama-cpp knows a wrapper by (what `chatWrapper` accepts), else its display name. */
export function chatWrapperName(module: typeof NodeLlamaCpp, wrapper: ChatWrapper): string {
  const entry = Object.entries(module.chatWrappers).find(
    ([, Wrapper]) => wrapper.constructor === Wrapper,
  );
  return entry?.[0] ?? wrapper.wrapperName;
}
