import {
  TOOL_CALL_FORMATS,
  toolCallFormatsFor,
  toolCallFormatsNamed,
  UNAMBIGUOUS_FORMATS,
} from './family-formats.js';
import type { ToolCallFormat } from './tool-call-format.js';

/** Where the formats read from a model's replies were chosen from, most telling first. */
export type ToolCallFormatSource = 'config' | 'template' | 'parser' | 'family' | 'name';

/** The formats to read a model's replies with, and what they were chosen from. */
export interface ToolCallFormatChoice {
  readonly formats: readonly ToolCallFormat[];
  readonly source: ToolCallFormatSource;
  /**
   * The one format the evidence names (the model is asked to write it when tools go into the prompt), or
   * `undefined` when only the unambiguous defaults apply.
   */
  readonly primary?: ToolCallFormat | undefined;
}

/** What is known about a model: its chat template, the tool parser its server runs, its family, its name. */
export interface ModelEvidence {
  /** A GGUF `tokenizer.chat_template` (Jinja) or the Go template Ollama's `/api/show` reports. */
  readonly template?: string | undefined;
  /** The parser the server reads the model's output with (Ollama's `/api/show` `parser`). */
  readonly parser?: string | undefined;
  /** Architectures or families (`general.architecture`, Ollama's `details.family`). */
  readonly families?: readonly (string | undefined)[] | undefined;
  /** The model's name as the user wrote it. */
  readonly model?: string | undefined;
}

/**
 * The syntax a chat template writes tool calls in, most specific first (a template holds the markers of the
 * formats it builds on: Qwen3-Coder's `<tool_call>` wraps `<function=`, Seed-OSS's `<seed:tool_call>` too).
 * `null`: a syntax the common readers handle (Mistral's `[TOOL_CALLS]`, Llama 3's `<|python_tag|>`, …).
 */
const TEMPLATE_RULES: readonly {
  readonly format: string | null;
  readonly has: readonly string[];
}[] = [
  { format: 'seed-oss', has: ['<seed:tool_call>'] },
  { format: 'minimax', has: ['<minimax:tool_call>'] },
  { format: 'deepseek-v3.2', has: ['｜DSML｜'] },
  { format: 'deepseek-v3', has: ['tool▁sep｜>', '```json'] },
  { format: 'deepseek-v3.1', has: ['tool▁sep｜>'] },
  { format: 'kimi-k2', has: ['<|tool_calls_section_begin|>'] },
  { format: 'kimi-k2', has: ['<|tool_call_section_begin|>'] },
  { format: 'gpt-oss', has: ['<|channel|>'] },
  { format: 'glm-4.5', has: ['<arg_key>'] },
  { format: 'qwen3-coder', has: ['<function=', '<parameter='] },
  { format: 'functionary-v3.2', has: ['>>>all'] },
  { format: 'functionary-v3.1', has: ['<function='] },
  { format: 'llama4', has: ['<|python_start|>'] },
  { format: 'lfm2', has: ['<|tool_call_start|>'] },
  { format: 'lfm2', has: ['<|tool_list_start|>'] },
  { format: 'command-r7b', has: ['<|START_ACTION|>'] },
  { format: 'nemotron', has: ['<TOOLCALL>'] },
  { format: 'apertus', has: ['<|tools_prefix|>'] },
  { format: 'internlm2', has: ['<|plugin|>'] },
  { format: 'gigachat3', has: ['<|role_sep|>', 'function call'] },
  { format: 'gigachat3', has: ['<|function_call|>'] },
  { format: 'jamba', has: ['<tool_calls>'] },
  { format: 'granite-20b-fc', has: ['<function_call>'] },
  { format: 'hermes', has: ['<tool_call>'] },
  { format: null, has: ['[TOOL_CALLS]'] },
  { format: null, has: ['<|python_tag|>'] },
  { format: null, has: ['<|tool_call|>'] },
];

/** Ollama's built-in output parsers (`/api/show` `parser`) and the format each reads. */
const PARSER_FORMATS: Readonly<Record<string, string | null>> = {
  'qwen3-coder': 'qwen3-coder',
  'qwen3.5': 'qwen3-coder',
  'nemotron-3-nano': 'qwen3-coder',
  'nemotron-3.5-nano': 'qwen3-coder',
  qwen3: 'hermes',
  'qwen3-thinking': 'hermes',
  'glm-4.7': 'glm-4.5',
  laguna: 'glm-4.5',
  deepseek3: 'deepseek-v3.1',
  cogito: 'deepseek-v3',
  lfm2: 'lfm2',
  'lfm2-thinking': 'lfm2',
  harmony: 'gpt-oss',
  cohere: 'command-r7b',
  ministral: null,
};

/** Architectures that only one tool-call syntax goes with (`deepseek2`, `qwen3moe` and the like do not). */
const FAMILY_FORMATS: Readonly<Record<string, string>> = {
  gptoss: 'gpt-oss',
  'gpt-oss': 'gpt-oss',
  glm4moe: 'glm-4.5',
  lfm2: 'lfm2',
  lfm2moe: 'lfm2',
  llama4: 'llama4',
  seed_oss: 'seed-oss',
  'minimax-m2': 'minimax',
  minimaxm2: 'minimax',
  cohere2: 'command-r7b',
  'hunyuan-moe': 'hunyuan-a13b',
  jamba: 'jamba',
  internlm2: 'internlm2',
  apertus: 'apertus',
};

/**
 * The formats a model with this chat template (GGUF Jinja or Ollama Go template) writes tool calls in: the
 * family whose call syntax the template holds first, then those its name adds, then the unambiguous ones. An
 * empty or unknown template gives `toolCallFormatsFor(model)`. Never throws.
 */
export function toolCallFormatsForTemplate(
  template: string,
  model?: string,
): readonly ToolCallFormat[] {
  return chooseToolCallFormats({ template, model }).formats;
}

/**
 * The formats to read a model's replies with, from the best evidence there is: its template, then the parser its
 * server runs, then its family, then its name. Formats whose markers occur in ordinary text are only chosen on
 * such evidence. Never throws.
 */
export function chooseToolCallFormats(evidence: ModelEvidence): ToolCallFormatChoice {
  const byName = toolCallFormatsFor(evidence.model);
  const fromTemplate = templateFormat(evidence.template);
  if (fromTemplate !== undefined) return choice(fromTemplate, byName, 'template');
  const parser = evidence.parser?.trim().toLowerCase() ?? '';
  const fromParser = Object.hasOwn(PARSER_FORMATS, parser) ? PARSER_FORMATS[parser] : undefined;
  if (fromParser !== undefined) return choice(fromParser, byName, 'parser');
  for (const family of evidence.families ?? []) {
    const key = family?.trim().toLowerCase() ?? '';
    const fromFamily = Object.hasOwn(FAMILY_FORMATS, key) ? FAMILY_FORMATS[key] : undefined;
    if (fromFamily !== undefined) return choice(fromFamily, byName, 'family');
  }
  const named =
    byName.length > UNAMBIGUOUS_FORMATS.length ? byName[0] : familyNamedBy(evidence.model);
  return { formats: byName, source: 'name', primary: named };
}

/**
 * Model names that tell the family of a model whose format is read anyway (its markers are unambiguous): the
 * format it is asked to write when tools go into its prompt. Most specific first (DeepSeek V3.2 before V3).
 */
const FAMILY_NAMES: readonly { readonly model: RegExp; readonly format: string }[] = [
  { model: /qwen3[._-]?coder/i, format: 'qwen3-coder' },
  { model: /glm[._-]?4\.[5-9]/i, format: 'glm-4.5' },
  { model: /minimax[._-]?m/i, format: 'minimax' },
  { model: /seed[._-]?oss/i, format: 'seed-oss' },
  { model: /deepseek[._-]?v3\.2/i, format: 'deepseek-v3.2' },
  { model: /deepseek[._-]?v3\.1/i, format: 'deepseek-v3.1' },
  { model: /deepseek[._-]?(?:v3|r1)/i, format: 'deepseek-v3' },
  { model: /kimi[._-]?k2/i, format: 'kimi-k2' },
  { model: /lfm[._-]?2/i, format: 'lfm2' },
  { model: /llama[._-]?4/i, format: 'llama4' },
  { model: /gpt[._-]?oss/i, format: 'gpt-oss' },
  { model: /command[._-]?(?:r7b|a\b)/i, format: 'command-r7b' },
  { model: /nemotron/i, format: 'nemotron' },
  { model: /jamba/i, format: 'jamba' },
  { model: /hunyuan/i, format: 'hunyuan-a13b' },
  { model: /apertus/i, format: 'apertus' },
  { model: /internlm[._-]?2/i, format: 'internlm2' },
  { model: /granite[._-]?20b[._-]?(?:fc|function)/i, format: 'granite-20b-fc' },
];

/** The format the family named in `model` writes, when its name tells (see `FAMILY_NAMES`). */
function familyNamedBy(model: string | undefined): ToolCallFormat | undefined {
  if (model === undefined) return undefined;
  const rule = FAMILY_NAMES.find((entry) => entry.model.test(model));
  return rule === undefined ? undefined : TOOL_CALL_FORMATS.find((f) => f.name === rule.format);
}

/** The formats the configuration names (`tool_call_format`), as a choice; throws on an unknown name. */
export function configuredToolCallFormats(name: string): ToolCallFormatChoice {
  const formats = toolCallFormatsNamed(name);
  return { formats, source: 'config', primary: formats[0] };
}

/** `tool-call format for <model>: <names> (from <source>)`, for a debug log. */
export function describeToolCallFormatChoice(model: string, chosen: ToolCallFormatChoice): string {
  const names = chosen.formats.map((format) => format.name).join(', ');
  return `tool-call format for ${model}: ${names} (from ${chosen.source})`;
}

/** The format named by the first rule the template matches; `null` for the common readers' syntax. */
function templateFormat(template: string | undefined): string | null | undefined {
  if (typeof template !== 'string' || template === '') return undefined;
  const rule = TEMPLATE_RULES.find((entry) =>
    entry.has.every((marker) => template.includes(marker)),
  );
  return rule?.format;
}

function choice(
  name: string | null,
  byName: readonly ToolCallFormat[],
  source: ToolCallFormatSource,
): ToolCallFormatChoice {
  const first = TOOL_CALL_FORMATS.find((format) => format.name === name);
  if (first === undefined) return { formats: byName, source };
  return {
    formats: [first, ...byName.filter((format) => format !== first)],
    source,
    primary: first,
  };
}
