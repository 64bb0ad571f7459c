import { JarvisError, unknownNameMessage } from '../../../core/index.js';
import { commandRFormat } from './command-r.js';
import { deepseekV3Format, deepseekV31Format, deepseekV32Format } from './deepseek.js';
import { TOOL_CALL_FORMAT_NAMES } from './format-names.js';
import { functionaryV31Format, functionaryV32Format } from './functionary.js';
import { glmFormat } from './glm.js';
import { gptOssFormat } from './gpt-oss.js';
import { hermesVariantsFormat, qwen25CoderFormat } from './hermes-variants.js';
import {
  apertusFormat,
  gigaChat3Format,
  granite20bFcFormat,
  hunyuanFormat,
  internlm2Format,
  jambaFormat,
  nemotronFormat,
  xlamFormat,
} from './json-list-markers.js';
import { kimiK2Format } from './kimi-k2.js';
import { lfm2Format } from './lfm2.js';
import { llama4Format } from './llama4.js';
import { minimaxFormat } from './minimax.js';
import { qwen3CoderFormat } from './qwen3-coder.js';
import { seedOssFormat } from './seed-oss.js';
import type { ToolCallFormat } from './tool-call-format.js';

/**
 * The formats read when nothing is known about the model: each starts with a marker no prose or code sample
 * writes by accident (special tokens, namespaced tags), so trying them all invents no call.
 */
export const UNAMBIGUOUS_FORMATS: readonly ToolCallFormat[] = [
  qwen3CoderFormat,
  glmFormat,
  minimaxFormat,
  seedOssFormat,
  deepseekV31Format,
  deepseekV3Format,
  deepseekV32Format,
  kimiK2Format,
  lfm2Format,
  llama4Format,
  gptOssFormat,
  commandRFormat,
  nemotronFormat,
  jambaFormat,
  hunyuanFormat,
  apertusFormat,
  internlm2Format,
  granite20bFcFormat,
];

/**
 * Formats whose markers also occur in ordinary text (`>>>`, `<tool>`, `<response>`, a bare JSON list): read only
 * for a model known to write them, matched by its name.
 */
const FORMATS_BY_MODEL: readonly { readonly model: RegExp; readonly format: ToolCallFormat }[] = [
  { model: /functionary.*v?3\.2|functionary-(small|medium)-v3\.2/i, format: functionaryV32Format },
  { model: /functionary/i, format: functionaryV31Format },
  { model: /hermes/i, format: hermesVariantsFormat },
  { model: /qwen2\.5-coder/i, format: qwen25CoderFormat },
  { model: /xlam/i, format: xlamFormat },
  { model: /gigachat/i, format: gigaChat3Format },
];

/** Every family format, by its name (`[engine] tool_call_format` picks one). */
export const TOOL_CALL_FORMATS: readonly ToolCallFormat[] = [
  ...UNAMBIGUOUS_FORMATS,
  functionaryV32Format,
  functionaryV31Format,
  hermesVariantsFormat,
  qwen25CoderFormat,
  xlamFormat,
  gigaChat3Format,
];

/**
 * The formats to read replies with when the configuration names the model's format: that one first, then the
 * unambiguous ones; an unknown name is an error listing the known ones.
 */
export function toolCallFormatsNamed(name: string): readonly ToolCallFormat[] {
  const named = TOOL_CALL_FORMATS.find((format) => format.name === name);
  if (named === undefined)
    throw new JarvisError({
      code: 'invalid_argument',
      message: `${unknownNameMessage('tool call format', name, TOOL_CALL_FORMAT_NAMES)} (set in \`tool_call_format\`)`,
    });
  return [named, ...UNAMBIGUOUS_FORMATS.filter((format) => format !== named)];
}

/** The formats to read a reply of `model` with: the unambiguous ones, plus those its name says it writes. */
export function toolCallFormatsFor(model: string | undefined): readonly ToolCallFormat[] {
  if (model === undefined || model === '') return UNAMBIGUOUS_FORMATS;
  let formats = formatsByModel.get(model);
  if (formats === undefined) {
    const named = FORMATS_BY_MODEL.filter((entry) => entry.model.test(model)).map(
      (entry) => entry.format,
    );
    formats = named.length === 0 ? UNAMBIGUOUS_FORMATS : [...named, ...UNAMBIGUOUS_FORMATS];
    // A program talks to a few models: the lists are kept by name (and the cache emptied should it fill up).
    if (formatsByModel.size >= MODELS_KEPT) formatsByModel.clear();
    formatsByModel.set(model, formats);
  }
  return formats;
}

/**
 * The list for each model name asked about, so each reply does not test the name against every pattern again
 * and readers can keep what they work out per list (the same list object each time).
 */
const formatsByModel = new Map<string, readonly ToolCallFormat[]>();
const MODELS_KEPT = 64;
