import { describe, expect, it } from 'vitest';
import { toolCallFormatsFor, UNAMBIGUOUS_FORMATS } from './family-formats.js';
import {
  chooseToolCallFormats,
  configuredToolCallFormats,
  describeToolCallFormatChoice,
  toolCallFormatsForTemplate,
} from './template-formats.js';

// Short excerpts written for these tests, in the shape of each family's real template (the call-writing part).
const TEMPLATES: readonly (readonly [format: string, template: string])[] = [
  [
    'qwen3-coder',
    "{%- for tool_call in message.tool_calls %}{{- '<tool_call>\\n<function=' + tool_call.name + '>\\n' }}{%- for k, v in tool_call.arguments|items %}{{- '<parameter=' + k + '>\\n' }}{{- v }}{{- '\\n</parameter>\\n' }}{%- endfor %}{{- '</function>\\n</tool_call>' }}{%- endfor %}",
  ],
  [
    'qwen3-coder',
    '{{- range .ToolCalls }}<tool_call>\n<function={{ .Function.Name }}>\n{{- range $k, $v := .Function.Arguments }}\n<parameter={{ $k }}>\n{{ $v }}\n</parameter>{{ end }}\n</function>\n</tool_call>{{ end }}',
  ],
  [
    'glm-4.5',
    "{{ '\\n<tool_call>' + tc.name }}{% for k, v in tc.arguments.items() %}{{ '\\n<arg_key>' + k + '</arg_key>\\n<arg_value>' + v + '</arg_value>' }}{% endfor %}{{ '\\n</tool_call>' }}",
  ],
  [
    'llama4',
    "{%- elif 'tool_calls' in message %}{{- '<|header_start|>assistant<|header_end|>\\n\\n' -}}{{- '<|python_start|>' }}{{- message['content'] }}{{- '<|python_end|>' }}",
  ],
  [
    'deepseek-v3',
    "{{'<｜Assistant｜><｜tool▁calls▁begin｜><｜tool▁call▁begin｜>' + tool['type'] + '<｜tool▁sep｜>' + tool['function']['name'] + '\\n' + '```json' + '\\n' + tool['function']['arguments'] + '\\n' + '```' + '<｜tool▁call▁end｜>'}}",
  ],
  [
    'deepseek-v3.1',
    "{{'<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>' + tool['function']['name'] + '<｜tool▁sep｜>' + tool['function']['arguments'] + '<｜tool▁call▁end｜>'}}",
  ],
  [
    'deepseek-v3.2',
    "{%- set dsml = '｜DSML｜' %}{{ '\\n\\n<' + dsml + 'function_calls>\\n' }}{{ '<' + dsml + 'invoke name=\"' + tc.name + '\">\\n' }}",
  ],
  [
    'kimi-k2',
    "{{ '<|tool_calls_section_begin|>' }}{%- for tc in message.tool_calls %}{{ '<|tool_call_begin|>' + tc.id + '<|tool_call_argument_begin|>' + tc.arguments + '<|tool_call_end|>' }}{%- endfor %}{{ '<|tool_calls_section_end|>' }}",
  ],
  ['lfm2', '{{- "<|tool_call_start|>[" + (calls | join(", ")) + "]<|tool_call_end|>" -}}'],
  ['lfm2', '{{- "List of tools: <|tool_list_start|>" + (tools | tojson) + "<|tool_list_end|>" -}}'],
  [
    'gpt-oss',
    "{{- '<|start|>assistant to=' + 'functions.' + tc.name + '<|channel|>commentary json<|message|>' + tc.arguments|tojson + '<|call|>' }}",
  ],
  [
    'functionary-v3.2',
    "{{ '>>>all\\n' + message['content'] }}{% for tool_call in message['tool_calls'] %}{{ '>>>' + tool_call['function']['name'] + '\\n' + tool_call['function']['arguments'] }}{% endfor %}",
  ],
  [
    'functionary-v3.1',
    "{{- '<function=' + tool_call.function.name + '>' + tool_call.function.arguments + '</function>' }}",
  ],
  [
    'command-r7b',
    '{{ \'<|START_ACTION|>[\\n\' }}{% for tc in message.tool_calls %}{"tool_call_id": "{{ loop.index0 }}", "tool_name": "{{ tc.function.name }}"}{% endfor %}{{ \']<|END_ACTION|>\' }}',
  ],
  ['nemotron', "{{- '<TOOLCALL>' + message['tool_calls'] | tojson + '</TOOLCALL>' }}"],
  [
    'hermes',
    '{{- \'<tool_call>\\n{"name": "\' + tool_call.name + \'", "arguments": \' + tool_call.arguments | tojson + \'}\\n</tool_call>\' }}',
  ],
  [
    'hermes',
    '{{ range .ToolCalls }}<tool_call>\n{"name": "{{ .Function.Name }}", "arguments": {{ .Function.Arguments }}}\n</tool_call>{{ end }}',
  ],
  [
    'seed-oss',
    "{{ '<seed:tool_call>\\n<function=' + tc.name + '>\\n' }}{% for k, v in tc.arguments.items() %}{{ '<parameter=' + k + '>' + v + '</parameter>\\n' }}{% endfor %}{{ '</function>\\n</seed:tool_call>' }}",
  ],
  [
    'minimax',
    "{{- '<minimax:tool_call>\\n' }}{{- '<invoke name=\"' + tc.name + '\">\\n' }}{{- '<parameter name=\"' + k + '\">' + v + '</parameter>\\n' }}{{- '</invoke>\\n</minimax:tool_call>' }}",
  ],
  ['gigachat3', "{{- '<|message_sep|>\\n\\nfunction call<|role_sep|>\\n' + tool_call | tojson }}"],
];

describe('toolCallFormatsForTemplate', () => {
  it.each(TEMPLATES)("puts %s first for its family's template", (format, template) => {
    const formats = toolCallFormatsForTemplate(template, 'my-model:latest');
    expect(formats[0]?.name).toBe(format);
    // The unambiguous ones always follow, each once.
    expect(new Set(formats).size).toBe(formats.length);
    for (const unambiguous of UNAMBIGUOUS_FORMATS) expect(formats).toContain(unambiguous);
  });

  it("reads Mistral's [TOOL_CALLS] with the common reader: no family format, no ambiguous one", () => {
    const mistral =
      "{{- '[TOOL_CALLS][' }}{%- for tc in message.tool_calls %}{{- tc | tojson }}{%- endfor %}{{- ']' }}";
    expect(toolCallFormatsForTemplate(mistral, 'my-model')).toEqual(UNAMBIGUOUS_FORMATS);
    expect(chooseToolCallFormats({ template: mistral, model: 'my-model' }).source).toBe('template');
  });

  it('falls back to the model name for an empty or unknown template', () => {
    const plain = '{{ .System }}\n{{ .Prompt }}';
    expect(toolCallFormatsForTemplate('', 'functionary-small-v3.2')).toEqual(
      toolCallFormatsFor('functionary-small-v3.2'),
    );
    expect(toolCallFormatsForTemplate(plain, 'hermes-3')).toEqual(toolCallFormatsFor('hermes-3'));
    expect(toolCallFormatsForTemplate(plain)).toEqual(UNAMBIGUOUS_FORMATS);
    expect(chooseToolCallFormats({ template: plain, model: 'x' }).source).toBe('name');
  });

  it('names the format a model is asked to write from its name when nothing better is known, and reads the same formats', () => {
    const cases: [string, string | undefined][] = [
      ['qwen3-coder-30b-a3b-instruct', 'qwen3-coder'],
      ['Qwen/Qwen3-Coder-480B', 'qwen3-coder'],
      ['glm-4.6', 'glm-4.5'],
      ['zai-org/GLM-4.5-Air', 'glm-4.5'],
      ['deepseek-v3.2-exp', 'deepseek-v3.2'],
      ['deepseek-ai/DeepSeek-V3.1', 'deepseek-v3.1'],
      ['deepseek-r1:14b', 'deepseek-v3'],
      ['kimi-k2-instruct', 'kimi-k2'],
      ['gpt-oss:20b', 'gpt-oss'],
      ['command-r7b', 'command-r7b'],
      ['MiniMax-M2', 'minimax'],
      ['Seed-OSS-36B', 'seed-oss'],
      ['LFM2-1.2B', 'lfm2'],
      ['llama-4-scout', 'llama4'],
      ['functionary-small-v3.2', 'functionary-v3.2'],
      ['qwen3:8b', undefined],
      ['my-model', undefined],
    ];
    for (const [model, format] of cases) {
      const chosen = chooseToolCallFormats({ model });
      expect(chosen.primary?.name, model).toBe(format);
      expect(chosen.formats, model).toBe(toolCallFormatsFor(model));
    }
    // A template's evidence still wins over the name.
    const glm = TEMPLATES.find(([format]) => format === 'glm-4.5')?.[1] ?? '';
    expect(chooseToolCallFormats({ template: glm, model: 'qwen3-coder' }).primary?.name).toBe(
      'glm-4.5',
    );
  });

  it('chooses an ambiguous format only on evidence: the template or the name', () => {
    const ambiguous = ['functionary-v3.2', 'functionary-v3.1', 'hermes', 'qwen2.5-coder', 'xlam'];
    const unknown = toolCallFormatsForTemplate('{{ .Prompt }}', 'my-model').map((f) => f.name);
    for (const name of ambiguous) expect(unknown).not.toContain(name);
    const qwen = TEMPLATES.find(([format]) => format === 'qwen3-coder')?.[1] ?? '';
    const names = toolCallFormatsForTemplate(qwen, 'my-model').map((f) => f.name);
    for (const name of ambiguous) expect(names).not.toContain(name);
    // The name still adds what it says, after the template's choice.
    const hermes = TEMPLATES.find(([format]) => format === 'hermes')?.[1] ?? '';
    const coder = toolCallFormatsForTemplate(hermes, 'qwen2.5-coder:7b').map((f) => f.name);
    expect(coder.slice(0, 2)).toEqual(['hermes', 'qwen2.5-coder']);
  });

  it('never throws on odd input', () => {
    for (const odd of [undefined, null, 42, {}, '\u0000'.repeat(10)]) {
      expect(toolCallFormatsForTemplate(odd as unknown as string, 'm')).toEqual(
        toolCallFormatsFor('m'),
      );
    }
  });
});

describe('chooseToolCallFormats', () => {
  it('prefers the template, then the server parser, then the family, then the name', () => {
    const glm = TEMPLATES.find(([format]) => format === 'glm-4.5')?.[1] ?? '';
    const all = { template: glm, parser: 'harmony', families: ['lfm2'], model: 'hermes' };
    expect(chooseToolCallFormats(all)).toMatchObject({ source: 'template' });
    expect(chooseToolCallFormats(all).formats[0]?.name).toBe('glm-4.5');
    const noTemplate = { ...all, template: '{{ .Prompt }}' };
    expect(chooseToolCallFormats(noTemplate).formats[0]?.name).toBe('gpt-oss');
    expect(chooseToolCallFormats(noTemplate).source).toBe('parser');
    const family = { ...noTemplate, parser: '' };
    expect(chooseToolCallFormats(family).formats[0]?.name).toBe('lfm2');
    expect(chooseToolCallFormats(family).source).toBe('family');
    const name = { ...family, families: ['qwen3moe', undefined] };
    expect(chooseToolCallFormats(name)).toEqual({
      formats: toolCallFormatsFor('hermes'),
      source: 'name',
      primary: toolCallFormatsFor('hermes')[0],
    });
    expect(chooseToolCallFormats(family).primary?.name).toBe('lfm2');
    expect(chooseToolCallFormats({ model: 'llama3.2' }).primary).toBeUndefined();
    expect(chooseToolCallFormats({ template: '[TOOL_CALLS]' }).primary).toBeUndefined();
  });

  it('reads the families case-insensitively and ignores unknown parsers', () => {
    const chosen = chooseToolCallFormats({ parser: 'toString', families: [' GptOss '] });
    expect(chosen.formats[0]?.name).toBe('gpt-oss');
    expect(chosen.source).toBe('family');
  });

  it('describes the choice for a debug log, and names the configured format', () => {
    const chosen = configuredToolCallFormats('glm-4.5');
    const line = describeToolCallFormatChoice('glm:latest', chosen);
    expect(line).toMatch(
      /^tool-call format for glm:latest: glm-4\.5, qwen3-coder, .* \(from config\)$/,
    );
    expect(() => configuredToolCallFormats('nope')).toThrow(/tool call format/);
  });
});
