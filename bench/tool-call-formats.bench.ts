// Issue 16's benchmark of the tool-call formats: (1) what reading a reply costs, per model family, at 1 KB and
// 1 MB, next to JSON.parse of a JSON document of the same byte length (goal <= 3x); (2) how much of a streamed
// reply's text reaches the user before the reply ends when it holds no call (goal >= 95%). Part (1) is timed in a
// worker thread without tsx (whose loader rewrites dist too), each batch right after a JSON.parse batch of the
// same size, the ratio taken sample by sample.
// Measures the BUILT library (build first: flock /tmp/jarvis-build.lock npm run build).
// Standalone: node --import tsx bench/tool-call-formats.bench.ts [--quick]
import { once } from 'node:events';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { StreamChunk } from '../src/core/index.js';
import type * as FamilyFormats from '../src/engine/wire/formats/family-formats.js';
import type * as ReadTextToolCalls from '../src/engine/wire/formats/read-text-tool-calls.js';
import type {
  OfferedToolSet,
  ToolCallFormat,
} from '../src/engine/wire/formats/tool-call-format.js';
import type * as Buffering from '../src/engine/wire/text-tool-call-buffer.js';

const distUrl = (path: string) => new URL(`../dist/${path}`, import.meta.url).href;
const { toolCallFormatsFor } = (await import(
  distUrl('engine/wire/formats/family-formats.js')
)) as typeof FamilyFormats;
const { readTextToolCalls, readVisibleText } = (await import(
  distUrl('engine/wire/formats/read-text-tool-calls.js')
)) as typeof ReadTextToolCalls;
const { TextToolCallBuffer } = (await import(
  distUrl('engine/wire/text-tool-call-buffer.js')
)) as typeof Buffering;

/** Options of `toolCallFormatsBench`. */
export interface ToolCallFormatsBenchOptions {
  /** 1 KB and 128 KB replies, fewer samples (a few seconds instead of about a minute). */
  readonly quick?: boolean;
}

const KB = 1024;
const RATIO_GOAL = 3;
/**
 * readTextToolCalls reads a reply whole: it first rules out the common formats (`<tool_call>` JSON, Mistral, …) and
 * finds which family's markers the reply holds, then runs that family's reader (held to RATIO_GOAL above). The
 * whole path is held to one JSON.parse more than a family's reader: ruling out and choosing should cost no more
 * (for a common format the whole path is its reader). Measured in session 10 at 1 KB: 0.6-2.5x (the most for the
 * two-byte DeepSeek / Kimi replies and for Qwen3-Coder), so the goal is not met by every row yet.
 */
const WHOLE_RATIO_GOAL = RATIO_GOAL + 1;
const SHARE_GOAL = 0.95;
const TOOL = 'write_file';
const PATH = 'notes/summary.md';
const TOOLS: OfferedToolSet = {
  names: new Set([TOOL, 'get_weather']),
  parametersOf: (name) =>
    name === TOOL
      ? { type: 'object', properties: { path: { type: 'string' }, text: { type: 'string' } } }
      : undefined,
};

// ---------------------------------------------------------------------------------------------------------
// Text: seeded prose (sentences, digits, punctuation, quotes; no braces, brackets, angle brackets or fences)

function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = (
  'the a of to and in that it is was for on with as at by from this we you they report model reply ' +
  'weather city river north morning market price kettle garden station letter window summary budget ' +
  'quarter meeting schedule coffee engine result table number figure answer question reason plan ' +
  'careful quickly usually rather nearly later early quiet bright simple useful second final ' +
  'shows keeps needs reads writes checks finds makes takes gives brings opens closes counts'
).split(' ');

/** About `chars` characters of prose from `seed`: sentences with numbers and punctuation, in paragraphs. */
function prose(chars: number, seed = 16): string {
  const random = mulberry32(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const parts: string[] = [];
  let length = 0;
  let sentence = 0;
  while (length < chars) {
    const words: string[] = [];
    const count = 6 + Math.floor(random() * 13);
    for (let i = 0; i < count; i += 1) {
      const roll = random();
      if (roll < 0.06) words.push(String(Math.floor(random() * 2030)));
      else if (roll < 0.08) words.push(`${(random() * 100).toFixed(1)}%`);
      else if (roll < 0.1) words.push(`"${pick(WORDS)}"`);
      else words.push(pick(WORDS));
      if (i > 2 && i < count - 2 && random() < 0.08) words[i] += pick([',', ';', ':', ' -']);
    }
    const text = words.join(' ').replace(/^./, (first) => first.toUpperCase());
    sentence += 1;
    const end = pick(['.', '.', '.', '!', '?']) + (sentence % 5 === 0 ? '\n\n' : ' ');
    parts.push(text + end);
    length += text.length + end.length;
  }
  return parts.join('').slice(0, chars);
}

const bytesOf = (text: string) => Buffer.byteLength(text, 'utf8');

/**
 * `build(part)` with `part` a prefix of `source` padded with spaces so the result is exactly `targetBytes`
 * bytes long (the largest prefix that fits, found by bisection; every character costs at least one byte).
 */
function fitToBytes(
  build: (part: string) => string,
  source: string,
  targetBytes: number,
): { text: string; part: string } {
  let low = 0;
  let high = source.length;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (bytesOf(build(source.slice(0, middle))) <= targetBytes) low = middle;
    else high = middle - 1;
  }
  const base = source.slice(0, low);
  const missing = targetBytes - bytesOf(build(base));
  if (missing < 0) throw new Error(`cannot fit a reply into ${targetBytes} bytes`);
  const part = base + ' '.repeat(missing);
  return { text: build(part), part };
}

// ---------------------------------------------------------------------------------------------------------
// How each family writes `write_file(path, text)` after some prose

interface CallArgs {
  readonly path: string;
  readonly text: string;
}

/** How one family writes a reply: `lead` prose (may be empty) and then one call. */
interface FamilyWriter {
  readonly format: string;
  /** The model name that makes readTextToolCalls and the stream buffer read this family. */
  readonly model?: string;
  readonly write: (lead: string, args: CallArgs) => string;
  /** False when the format has no room for prose (the whole reply is the call). */
  readonly lead?: false;
  /** The content a reader leaves of the text before the call (default: that text). */
  readonly content?: (before: string) => string;
}

const q = (value: string) => JSON.stringify(value);
const json = (args: CallArgs) => `{"path": ${q(args.path)}, "text": ${q(args.text)}}`;
const entry = (args: CallArgs) => `{"name": "${TOOL}", "arguments": ${json(args)}}`;
const pythonic = (args: CallArgs) => `[${TOOL}(path=${q(args.path)}, text=${q(args.text)})]`;
const glued = (lead: string, call: string) => (lead === '' ? call : `${lead}\n\n${call}`);
const DS_CALLS = '<｜tool▁calls▁begin｜>';
const DS_CALLS_END = '<｜tool▁calls▁end｜>';
const DS_CALL = '<｜tool▁call▁begin｜>';
const DS_CALL_END = '<｜tool▁call▁end｜>';
const DS_SEP = '<｜tool▁sep｜>';

const FAMILIES: readonly FamilyWriter[] = [
  {
    format: 'qwen3-coder',
    write: (lead, a) =>
      glued(
        lead,
        `<tool_call>\n<function=${TOOL}>\n<parameter=path>\n${a.path}\n</parameter>\n<parameter=text>\n${a.text}\n</parameter>\n</function>\n</tool_call>`,
      ),
  },
  {
    format: 'glm-4.5',
    write: (lead, a) =>
      glued(
        lead,
        `<tool_call>${TOOL}\n<arg_key>path</arg_key>\n<arg_value>${a.path}</arg_value>\n<arg_key>text</arg_key>\n<arg_value>${a.text}</arg_value>\n</tool_call>`,
      ),
  },
  {
    format: 'minimax',
    write: (lead, a) =>
      glued(
        lead,
        `<minimax:tool_call>\n<invoke name="${TOOL}">\n<parameter name="path">${a.path}</parameter>\n<parameter name="text">${a.text}</parameter>\n</invoke>\n</minimax:tool_call>`,
      ),
  },
  {
    format: 'seed-oss',
    write: (lead, a) =>
      glued(
        lead,
        `<seed:tool_call>\n<function=${TOOL}>\n<parameter=path>${a.path}</parameter>\n<parameter=text>${a.text}</parameter>\n</function>\n</seed:tool_call>`,
      ),
  },
  {
    format: 'deepseek-v3.1',
    write: (lead, a) =>
      `${lead}${DS_CALLS}${DS_CALL}${TOOL}${DS_SEP}${json(a)}${DS_CALL_END}${DS_CALLS_END}`,
  },
  {
    format: 'deepseek-v3',
    write: (lead, a) =>
      `${lead}${DS_CALLS}${DS_CALL}function${DS_SEP}${TOOL}\n\`\`\`json\n${json(a)}\n\`\`\`${DS_CALL_END}${DS_CALLS_END}`,
  },
  {
    format: 'deepseek-v3.2',
    write: (lead, a) => {
      const parameter = (name: string, value: string) =>
        `<｜DSML｜parameter name="${name}" string="true">${value}</｜DSML｜parameter>`;
      const invoke = `<｜DSML｜invoke name="${TOOL}">\n${parameter('path', a.path)}\n${parameter('text', a.text)}\n</｜DSML｜invoke>`;
      return glued(lead, `<｜DSML｜function_calls>\n${invoke}\n</｜DSML｜function_calls>`);
    },
  },
  {
    format: 'kimi-k2',
    write: (lead, a) =>
      `${lead}<|tool_calls_section_begin|><|tool_call_begin|>functions.${TOOL}:0<|tool_call_argument_begin|>${json(a)}<|tool_call_end|><|tool_calls_section_end|>`,
  },
  {
    format: 'lfm2',
    write: (lead, a) => glued(lead, `<|tool_call_start|>${pythonic(a)}<|tool_call_end|>`),
  },
  {
    format: 'llama4',
    write: (lead, a) => glued(lead, `<|python_start|>${pythonic(a)}<|python_end|>`),
  },
  {
    format: 'gpt-oss',
    content: () => '', // the analysis channel is not content
    write: (lead, a) =>
      `${lead === '' ? '' : `<|channel|>analysis<|message|>${lead}<|end|>`}<|start|>assistant<|channel|>commentary to=functions.${TOOL} <|constrain|>json<|message|>${json(a)}<|call|>`,
  },
  {
    format: 'command-r7b',
    content: (before) => before.replace(/<\|(START|END)_RESPONSE\|>/g, ''),
    write: (lead, a) =>
      `${lead === '' ? '' : `<|START_RESPONSE|>${lead}<|END_RESPONSE|>\n`}<|START_ACTION|>[\n    {"tool_call_id": "0", "tool_name": "${TOOL}", "parameters": ${json(a)}}\n]<|END_ACTION|>`,
  },
  { format: 'nemotron', write: (lead, a) => glued(lead, `<TOOLCALL>[${entry(a)}]</TOOLCALL>`) },
  { format: 'jamba', write: (lead, a) => glued(lead, `<tool_calls>[${entry(a)}]</tool_calls>`) },
  {
    format: 'hunyuan-a13b',
    write: (lead, a) => glued(lead, `<tool_calls>\n[${entry(a)}]\n</tool_calls>`),
  },
  {
    format: 'apertus',
    write: (lead, a) => glued(lead, `<|tools_prefix|>[{"${TOOL}": ${json(a)}}]<|tools_suffix|>`),
  },
  {
    format: 'internlm2',
    write: (lead, a) =>
      glued(
        lead,
        `<|action_start|><|plugin|>\n{"name": "${TOOL}", "parameters": ${json(a)}}<|action_end|>`,
      ),
  },
  { format: 'granite-20b-fc', write: (lead, a) => glued(lead, `<function_call> ${entry(a)}`) },
  {
    format: 'functionary-v3.2',
    model: 'functionary-small-v3.2',
    content: (before) => before.replace(/^all\n/, ''),
    write: (lead, a) => `${lead === '' ? '' : `all\n${lead}`}>>>${TOOL}\n${json(a)}`,
  },
  {
    format: 'functionary-v3.1',
    model: 'functionary-medium-v3.1',
    write: (lead, a) => `${lead}<function=${TOOL}>${json(a)}</function>`,
  },
  {
    format: 'hermes',
    model: 'hermes-3-llama-3.1-8b',
    write: (lead, a) => glued(lead, `<tool_call>\n${entry(a)}\n</tool_call>`),
  },
  {
    format: 'qwen2.5-coder',
    model: 'qwen2.5-coder-7b-instruct',
    write: (lead, a) => glued(lead, `<tools>\n${entry(a)}\n</tools>`),
  },
  { format: 'xlam', model: 'xlam-2-8b-fc-r', lead: false, write: (_, a) => `[${entry(a)}]` },
  {
    format: 'gigachat3',
    model: 'gigachat3-10b',
    write: (lead, a) => `${lead}<|message_sep|>\n\nfunction call<|role_sep|>\n${entry(a)}`,
  },
];

/** Formats read by readTextToolCalls before any family's (no ToolCallFormat of their own). */
const COMMON: readonly FamilyWriter[] = [
  {
    format: 'common: mistral [TOOL_CALLS]',
    write: (lead, a) => `${lead}[TOOL_CALLS][${entry(a)}]`,
  },
  {
    format: 'common: llama3.1 <|python_tag|>',
    write: (lead, a) => `${lead}<|python_tag|>{"name": "${TOOL}", "parameters": ${json(a)}}`,
  },
  { format: 'common: JSON after prose', write: (lead, a) => glued(lead, entry(a)) },
];

/** Every format the library has, by name (the unambiguous ones and those chosen by a model's name). */
function libraryFormats(): Map<string, ToolCallFormat> {
  const byName = new Map<string, ToolCallFormat>();
  for (const model of [undefined, ...FAMILIES.map((family) => family.model)]) {
    for (const format of toolCallFormatsFor(model)) byName.set(format.name, format);
  }
  const unwritten = [...byName.keys()].filter(
    (name) => !FAMILIES.some((family) => family.format === name),
  );
  if (unwritten.length > 0) {
    throw new Error(`the bench has no reply writer for the format(s): ${unwritten.join(', ')}`);
  }
  return byName;
}

// ---------------------------------------------------------------------------------------------------------
// Replies of a given size, and a check that each one really holds its call

type Shape = 'small' | 'arg' | 'prose';

const LEAD = "I'll save the summary of the meeting to your notes now.";
const SHORT_TEXT = 'Meeting summary: budget approved, 3 actions, next review on the 14th.';

/** One reply of `shape` in `family`'s syntax, exactly `bytes` long (`undefined` when the format has no prose). */
function replyOf(
  family: FamilyWriter,
  shape: Shape,
  bytes: number,
  text: string,
): { reply: string; args: CallArgs } | undefined {
  const lead = family.lead === false ? '' : LEAD;
  if (shape !== 'prose') {
    const build = (part: string) => family.write(lead, { path: PATH, text: part });
    const fitted = fitToBytes(build, text, bytes);
    return { reply: fitted.text, args: { path: PATH, text: fitted.part } };
  }
  if (family.lead === false) return undefined;
  const args = { path: PATH, text: SHORT_TEXT };
  const fitted = fitToBytes((part) => family.write(part, args), text, bytes);
  return { reply: fitted.text, args };
}

interface Found {
  readonly content: string;
  readonly calls: readonly { name: string; arguments: string }[];
}

/** The content a reader should leave of `reply`: the prose before the call (none for GPT-OSS's analysis). */
function expectedContent(family: FamilyWriter, reply: string, args: CallArgs): string {
  const before = reply.slice(0, reply.indexOf(family.write('', args)));
  return family.content === undefined ? before : family.content(before);
}

/** Why `found` is not the one call of `args` with `content` left, or `undefined` when it is. */
function callProblem(
  found: Found | undefined,
  args: CallArgs,
  content: string,
): string | undefined {
  const calls = found?.calls;
  if (calls === undefined || calls.length === 0) return 'no call found';
  if (found?.content.trim() !== content.trim()) {
    return `content ${JSON.stringify(found?.content.slice(-60))} (expected the prose only)`;
  }
  if (calls.length !== 1) return `${calls.length} calls found`;
  const [call] = calls;
  if (call?.name !== TOOL) return `wrong name ${call?.name}`;
  try {
    const value = JSON.parse(call.arguments) as Partial<CallArgs>;
    if (value.path !== args.path) return 'wrong path';
    if (value.text?.trim() !== args.text.trim()) return 'wrong text';
  } catch {
    return 'arguments not JSON';
  }
  return undefined;
}

const ids = () => {
  let count = 0;
  return () => `call_${count++}`;
};

// ---------------------------------------------------------------------------------------------------------
// Timing: every case sample by sample, interleaved, median per operation, in a worker that runs the built
// library as production does (the bench itself runs under tsx, whose loader rewrites every module it loads,
// dist included, wrapping each function it creates in a naming helper that costs 15-30% of a read)

/** What one timed case runs, sent to the timing worker (the reply, the format by name, the model). */
type CaseSpec =
  | { readonly kind: 'json'; readonly text: string }
  | { readonly kind: 'read'; readonly format: string; readonly reply: string }
  | { readonly kind: 'whole'; readonly model: string | undefined; readonly reply: string };

interface TimedCase {
  readonly key: string;
  readonly spec: CaseSpec;
  /** The key of the JSON.parse case timed right before each of this case's batches (their ratio per sample). */
  readonly baseline?: string;
  /** Cases of one group (one reply size) are timed together. */
  readonly group: string;
}

/** Per case, the median µs per run, and the median of the ratios to its baseline timed next to it. */
interface Timings {
  readonly micros: Map<string, number>;
  readonly ratios: Map<string, number>;
}

/**
 * The timing worker (plain JavaScript, started without tsx): builds each case's function from its spec, warms it
 * up (its group's count of runs) and sizes a batch to its group's `targetMs` (doubling batches until one takes half
 * of it, then the best time per run of a few batches of that count), then times its group's `samples` rounds of one batch per case (each right after a batch of its JSON.parse baseline), the cases of one reply size
 * interleaved, and posts the median µs per run of each and the median of its ratios to the baseline.
 */
const TIMING_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
(async () => {
  const { cases, plans, formatsUrl, readUrl, models } = workerData;
  const { toolCallFormatsFor } = await import(formatsUrl);
  const { readTextToolCalls } = await import(readUrl);
  const formats = new Map();
  for (const model of [undefined, ...models]) for (const f of toolCallFormatsFor(model)) formats.set(f.name, f);
  const schema = { type: 'object', properties: { path: { type: 'string' }, text: { type: 'string' } } };
  const tools = { names: new Set([${JSON.stringify(TOOL)}, 'get_weather']), parametersOf: (name) => (name === ${JSON.stringify(TOOL)} ? schema : undefined) };
  const runOf = (spec) => {
    if (spec.kind === 'json') return () => JSON.parse(spec.text);
    if (spec.kind === 'read') { const format = formats.get(spec.format); return () => format.read(spec.reply, tools); }
    let count = 0;
    const generateId = () => 'call_' + count++;
    return () => readTextToolCalls(spec.reply, tools, { model: spec.model ?? undefined, generateId });
  };
  let sink;
  const timeRuns = (run, count) => {
    const started = performance.now();
    for (let i = 0; i < count; i += 1) sink = run();
    return performance.now() - started;
  };
  // Doubling finds the order of a batch; the time per run is then the best of a few batches of that count (at least
  // 16 runs), because one slow run ends the doubling early: the first run after another case's batch takes up to
  // 10x a warm one (caches), and a collection or a deschedule costs more than a kilobyte batch. Sized from that
  // one run, batches of 1-4 runs were timed cold, and their rows read 15x-45x.
  const batchSize = (run, targetMs) => {
    let count = 1;
    while (count < 1 << 20 && timeRuns(run, count) < targetMs / 2) count *= 2;
    const probe = Math.max(count, 16);
    let best = Infinity;
    for (let attempt = 0; attempt < 5; attempt += 1) best = Math.min(best, timeRuns(run, probe) / probe);
    return Math.max(1, Math.round(targetMs / Math.max(best, 1e-6)));
  };
  const runs = cases.map((timed) => runOf(timed.spec));
  const planOf = (index) => plans[cases[index].group] ?? plans.default;
  // Warmed up by a count of runs, not by time: on a loaded machine a time-boxed warm-up gets little CPU.
  runs.forEach((run, index) => timeRuns(run, planOf(index).warmRuns));
  const batches = runs.map((run, index) => batchSize(run, planOf(index).targetMs));
  const baselines = cases.map((timed) => cases.findIndex((other) => other.key === timed.baseline));
  const microsOf = (index) => (timeRuns(runs[index], batches[index]) * 1000) / batches[index];
  const perRun = runs.map(() => []);
  const perRatio = runs.map(() => []);
  // The cases of one baseline (one size) are timed together, so the garbage of megabyte replies is collected
  // on megabyte cases' time rather than on the kilobyte case that follows one.
  for (const group of new Set(cases.map((timed) => timed.group))) {
    const members = cases.flatMap((timed, index) => (timed.group === group ? [index] : []));
    for (let sample = 0; sample < planOf(members[0]).samples; sample += 1) {
      for (const index of members) {
        const base = baselines[index];
        const baseMicros = base === -1 ? undefined : microsOf(base);
        const micros = microsOf(index);
        perRun[index].push(micros);
        if (baseMicros !== undefined) perRatio[index].push(micros / baseMicros);
      }
    }
  }
  const median = (values) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)];
  parentPort.postMessage({
    micros: cases.map((timed, index) => [timed.key, median(perRun[index])]),
    ratios: cases.flatMap((timed, index) => (perRatio[index].length === 0 ? [] : [[timed.key, median(perRatio[index])]])),
    sink: typeof sink,
  });
})().catch((error) => { throw error; });
`;

/** How one group of cases is timed: warm-up runs, then `samples` rounds of a batch of about `targetMs` each. */
interface TimingPlan {
  readonly samples: number;
  readonly targetMs: number;
  readonly warmRuns: number;
}

/**
 * Median µs per run of each case, and of its ratio to its baseline batch by batch (a JSON.parse batch timed right
 * before each of its batches), timed in a worker thread that runs the built library without tsx. `plans` by
 * group (`default` for the others).
 */
async function timeCases(
  cases: readonly TimedCase[],
  plans: Readonly<Record<'default' | string, TimingPlan>>,
): Promise<Timings> {
  const worker = new Worker(TIMING_WORKER, {
    eval: true,
    execArgv: [],
    workerData: {
      cases,
      plans,
      formatsUrl: distUrl('engine/wire/formats/family-formats.js'),
      readUrl: distUrl('engine/wire/formats/read-text-tool-calls.js'),
      models: FAMILIES.flatMap((family) => (family.model === undefined ? [] : [family.model])),
    },
  });
  try {
    const [message] = (await once(worker, 'message')) as [
      { micros: [string, number][]; ratios: [string, number][] },
    ];
    return { micros: new Map(message.micros), ratios: new Map(message.ratios) };
  } finally {
    await worker.terminate();
  }
}

// ---------------------------------------------------------------------------------------------------------
// Part 1: parse cost per reply

interface Sizes {
  readonly small: number;
  readonly large: number;
}

interface Prepared {
  readonly cases: TimedCase[];
  /** Why a reply gave no (or the wrong) call, by case key. */
  readonly problems: Map<string, string>;
}

const SHAPES: readonly Shape[] = ['small', 'arg', 'prose'];
const sizeOf = (shape: Shape, sizes: Sizes) => (shape === 'small' ? sizes.small : sizes.large);
const caseKey = (kind: string, family: string, shape: Shape) => `${kind} ${family} ${shape}`;

/** The JSON.parse baselines and, per family and shape, format.read and readTextToolCalls cases. */
function prepareParseCases(formats: Map<string, ToolCallFormat>, sizes: Sizes): Prepared {
  const text = prose(sizes.large * 1.1, 7);
  const cases: TimedCase[] = [];
  const problems = new Map<string, string>();
  for (const shape of ['small', 'arg'] as const) {
    const document = fitToBytes(
      (part) => `{"name": "${TOOL}", "arguments": {"path": "${PATH}", "text": ${q(part)}}}`,
      text,
      sizeOf(shape, sizes),
    ).text;
    cases.push({ key: `json ${shape}`, spec: { kind: 'json', text: document }, group: shape });
  }
  for (const family of [...FAMILIES, ...COMMON]) {
    const format = formats.get(family.format);
    for (const shape of SHAPES) {
      const built = replyOf(family, shape, sizeOf(shape, sizes), text);
      if (built === undefined) continue;
      const { reply, args } = built;
      const read = () => format?.read(reply, TOOLS);
      const whole = () =>
        readTextToolCalls(reply, TOOLS, { model: family.model, generateId: ids() });
      const content = expectedContent(family, reply, args);
      const wholeFound = (): Found | undefined => {
        const found = whole();
        return found && { content: found.content, calls: found.toolCalls };
      };
      const checks: [string, () => string | undefined, CaseSpec][] = [
        [
          'whole',
          () => callProblem(wholeFound(), args, content),
          { kind: 'whole', model: family.model, reply },
        ],
      ];
      if (format !== undefined) {
        const spec: CaseSpec = { kind: 'read', format: format.name, reply };
        checks.push(['read', () => callProblem(read(), args, content), spec]);
      }
      for (const [kind, check, spec] of checks) {
        const key = caseKey(kind, family.format, shape);
        const problem = check();
        if (problem !== undefined) problems.set(key, problem);
        const base = shape === 'small' ? 'small' : 'arg';
        cases.push({ key, spec, baseline: `json ${base}`, group: base });
      }
    }
  }
  return { cases, problems };
}

function formatMicros(us: number): string {
  if (Number.isNaN(us)) return '-';
  if (us >= 10_000) return `${(us / 1000).toFixed(1)} ms`;
  if (us >= 1000) return `${(us / 1000).toFixed(2)} ms`;
  return `${us.toFixed(us >= 100 ? 0 : 1)} µs`;
}

function formatSize(bytes: number): string {
  return bytes >= KB * KB ? `${bytes / (KB * KB)} MB` : `${bytes / KB} KB`;
}

/** Renders rows as a bench table (`## title`, header, rule, rows, notes) like bench/harness.ts. */
function renderTable(title: string, header: readonly string[], rows: readonly string[][]): string {
  const widths = header.map((cell, column) =>
    Math.max(cell.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join('  ')
      .trimEnd();
  return [
    `## ${title}`,
    line(header),
    widths.map((w) => '-'.repeat(w)).join('  '),
    ...rows.map(line),
  ]
    .join('\n')
    .trimEnd();
}

interface ParseTableInput {
  readonly kind: 'read' | 'whole';
  readonly families: readonly FamilyWriter[];
  readonly micros: Map<string, number>;
  /** Each case's median ratio to its JSON.parse baseline, batch by batch. */
  readonly ratios: Map<string, number>;
  readonly problems: Map<string, string>;
  readonly sizes: Sizes;
}

interface ParseTable {
  readonly table: string;
  /** Families above the goal in some shape. */
  readonly over: readonly string[];
  /** One line per reply read wrong. */
  readonly wrong: readonly string[];
}

const SHAPE_NAMES: Record<Shape, string> = { small: 'small', arg: 'long arg', prose: 'prose' };

/** Whether a goal is met, or by how many of `rows` rows it is not. */
function goalLine(over: readonly string[], rows: number): string {
  return over.length === 0
    ? 'met'
    : `NOT met by ${over.length} of ${rows} rows (see the flag column)`;
}

/** One table (format.read or readTextToolCalls): per family the µs and ratio to JSON.parse per shape. */
function parseTable(input: ParseTableInput): ParseTable {
  const { kind, micros, ratios, problems, sizes } = input;
  const what = kind === 'read' ? 'format.read' : 'readTextToolCalls';
  const goal = kind === 'read' ? RATIO_GOAL : WHOLE_RATIO_GOAL;
  const over: string[] = [];
  const wrong: string[] = [];
  const rows = input.families.map((family) => {
    const row = [family.format];
    const slow: string[] = [];
    const bad: string[] = [];
    for (const shape of SHAPES) {
      const key = caseKey(kind, family.format, shape);
      const us = micros.get(key);
      const base = micros.get(`json ${shape === 'small' ? 'small' : 'arg'}`) ?? Number.NaN;
      if (us === undefined) {
        row.push('n/a', '');
        continue;
      }
      const ratio = ratios.get(key) ?? us / base;
      row.push(formatMicros(us), `${ratio.toFixed(2)}x`);
      if (ratio > goal) slow.push(SHAPE_NAMES[shape]);
      const problem = problems.get(key);
      if (problem === undefined) continue;
      bad.push(SHAPE_NAMES[shape]);
      wrong.push(`${what} ${family.format} (${SHAPE_NAMES[shape]}): ${problem}`);
    }
    if (slow.length > 0) over.push(`${family.format} (${what})`);
    const flags = [
      slow.length === 0 ? '' : `> ${goal}x: ${slow.join(', ')}`,
      bad.length === 0 ? '' : `WRONG: ${bad.join(', ')}`,
    ];
    row.push(flags.filter((flag) => flag !== '').join('; '));
    return row;
  });
  const large = formatSize(sizes.large);
  const header = [
    'family',
    `${formatSize(sizes.small)} reply`,
    'ratio',
    `${large} long arg`,
    'ratio',
    `${large} prose + call`,
    'ratio',
    'flag',
  ];
  const title = `Tool-call parse cost per reply: ${kind === 'read' ? 'format.read(reply)' : 'readTextToolCalls(reply) (common formats first, then the families)'}`;
  return { table: renderTable(title, header, rows), over, wrong };
}

/**
 * Kilobyte replies take microseconds: timed in many short batches, so that on a loaded machine (where a process is
 * often descheduled for milliseconds) most pairs of batches run undisturbed and the median ratio is theirs; a
 * batch of 20 ms is rarely spared, and the ratio of two disturbed batches swung 3x-26x at load 15-24. Large
 * replies take milliseconds per read: a few long samples.
 */
function timingPlans(samples: number, targetMs: number): Record<string, TimingPlan> {
  return {
    small: {
      samples: Math.ceil((samples * 14) / SMALL_WORKERS),
      targetMs: 0.25,
      warmRuns: 20_000,
    },
    default: { samples, targetMs, warmRuns: 2 },
  };
}

/**
 * Kilobyte cases are timed in this many workers one after the other, each a fresh V8 isolate, and the median of
 * their medians is kept: within one isolate a case's speed (or JSON.parse's) can stay 2x-40x off for the whole run
 * (seen in 1 run of 3 to 4: the same code and reply, 2.5x in one isolate and 35x in the next).
 */
const SMALL_WORKERS = 3;

/** `timeCases` of the kilobyte group in `SMALL_WORKERS` fresh workers (median of theirs), the rest in one more. */
async function timeAllCases(
  cases: readonly TimedCase[],
  plans: Readonly<Record<string, TimingPlan>>,
): Promise<Timings> {
  const small = cases.filter((timed) => timed.group === 'small');
  const rest = cases.filter((timed) => timed.group !== 'small');
  const runs: Timings[] = [];
  for (let worker = 0; worker < SMALL_WORKERS; worker += 1)
    runs.push(await timeCases(small, plans));
  const middle = (values: number[]) => values.sort((a, b) => a - b)[values.length >> 1] as number;
  const merged = (of: (run: Timings) => number | undefined) => {
    const values = runs.flatMap((run) => of(run) ?? []);
    return values.length === 0 ? undefined : middle(values);
  };
  const micros = new Map<string, number>();
  const ratios = new Map<string, number>();
  for (const key of runs[0]?.micros.keys() ?? []) {
    const us = merged((run) => run.micros.get(key));
    if (us !== undefined) micros.set(key, us);
    const ratio = merged((run) => run.ratios.get(key));
    if (ratio !== undefined) ratios.set(key, ratio);
  }
  if (rest.length > 0) {
    const large = await timeCases(rest, plans);
    for (const [key, us] of large.micros) micros.set(key, us);
    for (const [key, ratio] of large.ratios) ratios.set(key, ratio);
  }
  return { micros, ratios };
}

async function parseCostReport(sizes: Sizes, samples: number, targetMs: number): Promise<string> {
  const formats = libraryFormats();
  const prepared = prepareParseCases(formats, sizes);
  const plans = timingPlans(samples, targetMs);
  const { micros, ratios } = await timeAllCases(prepared.cases, plans);
  const common = { micros, ratios, problems: prepared.problems, sizes };
  const read = parseTable({ kind: 'read', families: FAMILIES, ...common });
  const whole = parseTable({ kind: 'whole', families: [...FAMILIES, ...COMMON], ...common });
  const json = (shape: Shape) => formatMicros(micros.get(`json ${shape}`) ?? Number.NaN);
  const wrong = [...read.wrong, ...whole.wrong];
  const lines = [
    read.table,
    '',
    whole.table,
    `baseline: JSON.parse of a {"name", "arguments": {"path", "text"}} document of the same bytes: ${formatSize(sizes.small)} ${json('small')}, ${formatSize(sizes.large)} ${json('arg')} (medians of interleaved samples: ${plans.small?.samples} batches of ${plans.small?.targetMs} ms at ${formatSize(sizes.small)} in each of ${SMALL_WORKERS} workers, the median of their medians kept, ${samples} of ${targetMs} ms at ${formatSize(sizes.large)}; timed in a worker without tsx; a ratio is the median over the samples of a batch's time to that of a JSON.parse batch timed right before it; the DeepSeek replies are two-byte strings)`,
    `goal: each family's format.read <= ${RATIO_GOAL}x JSON.parse of the same bytes: ${goalLine(read.over, FAMILIES.length)}`,
    `goal: readTextToolCalls (ruling out the common formats and choosing the family, then reading) <= ${WHOLE_RATIO_GOAL}x: ${goalLine(whole.over, FAMILIES.length + COMMON.length)}`,
  ];
  if (wrong.length > 0) {
    lines.push(`replies read wrong (${wrong.length}):`, ...wrong.map((line) => `  ${line}`));
  }
  return lines.join('\n');
}

// ---------------------------------------------------------------------------------------------------------
// Part 2: the share of a streamed reply's text passed on before the reply ends

const STREAM_END = {
  finishReason: 'stop',
  usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
  model: 'bench',
} as const;

/** `text` cut into chunks of 5 to 40 characters (seeded). */
function chunksOf(text: string, seed: number): StreamChunk[] {
  const random = mulberry32(seed);
  const chunks: StreamChunk[] = [];
  for (let at = 0; at < text.length; ) {
    const size = 5 + Math.floor(random() * 36);
    chunks.push({ type: 'text_delta', text: text.slice(at, at + size) });
    at += size;
  }
  return chunks;
}

interface StreamRun {
  /** Characters of text passed on by pass(), before end(). */
  readonly early: number;
  /** All the text that came out, and the calls. */
  readonly text: string;
  readonly calls: number;
}

/** Feeds `reply` chunk by chunk through a TextToolCallBuffer with tools offered. */
function streamThrough(reply: string, model: string | undefined, seed: number): StreamRun {
  const buffer = new TextToolCallBuffer(TOOLS, model, (index) => `call_${index}`);
  let early = 0;
  let text = '';
  for (const chunk of chunksOf(reply, seed)) {
    for (const out of buffer.pass([chunk])) {
      if (out.type !== 'text_delta') continue;
      early += out.text.length;
      text += out.text;
    }
  }
  let calls = 0;
  for (const out of buffer.end([], STREAM_END)) {
    if (out.type === 'text_delta') text += out.text;
    if (out.type === 'tool_call') calls += 1;
  }
  return { early, text, calls };
}

const percent = (share: number) => `${(share * 100).toFixed(1)}%`;

/** Ordinary prose that holds a call start (not in the goal): where it stands decides what streams. */
const HELD_PROSE: readonly { readonly name: string; readonly insert: string }[] = [
  { name: 'a markdown link', insert: ' (see [the notes](https://example.com/notes)) ' },
  { name: 'an inline JSON example', insert: ' such as {"ok": true} ' },
  { name: 'the word "commentary"', insert: ' in his commentary ' },
  { name: 'a code fence', insert: '\n```ts\nconst ok = { done: true };\n```\n' },
];

/** Rows for no-call prose with one of `HELD_PROSE` a tenth of the way in (informative, not in the goal). */
function heldProseRows(text: string): string[][] {
  const at = text.indexOf(' ', Math.floor(text.length / 10));
  return HELD_PROSE.map(({ name, insert }) => {
    const reply = text.slice(0, at) + insert + text.slice(at + 1);
    const run = streamThrough(reply, undefined, 5);
    const note = run.text === reply ? 'informative' : 'informative (TEXT CHANGED)';
    const share = percent(run.early / reply.length);
    return [`no call, ${name} at 10%`, String(reply.length), String(run.early), share, note];
  });
}

/** Special tokens a reader cuts out around calls; none may reach the user before the reply is read. */
const MARKUP = /<\|[A-Za-z_]+\|>|^all\n|>>>all\n|^analysis|assistantfinal/;

/**
 * No-call replies written in a family's markup: the user sees only their visible text (the final channel, the
 * `all` text, the response), streamed from where it begins; the reasoning goes apart.
 */
const MARKUP_REPLIES: readonly {
  readonly name: string;
  readonly model: string;
  readonly write: (text: string) => string;
}[] = [
  {
    name: 'gpt-oss harmony (analysis + final)',
    model: 'gpt-oss-20b',
    write: (text) =>
      `<|channel|>analysis<|message|>Let me think.<|end|><|start|>assistant<|channel|>final<|message|>${text}<|return|>`,
  },
  {
    name: 'gpt-oss stripped (analysis…assistantfinal)',
    model: 'gpt-oss-20b',
    write: (text) => `analysisLet me think.assistantfinal${text}`,
  },
  {
    name: 'functionary-v3.2 all',
    model: 'functionary-small-v3.2',
    write: (text) => `all\n${text}`,
  },
  {
    name: 'command-r7b response',
    model: 'command-r7b',
    write: (text) => `<|START_RESPONSE|>${text}<|END_RESPONSE|>`,
  },
  {
    name: 'command-r7b thinking + response',
    model: 'command-r7b',
    write: (text) =>
      `<|START_THINKING|>Let me think.<|END_THINKING|><|START_RESPONSE|>${text}<|END_RESPONSE|>`,
  },
  {
    name: 'gigachat3 message end',
    model: 'gigachat3-10b',
    write: (text) => `${text}<|message_sep|>`,
  },
];

/**
 * Rows for no-call replies in a family's markup: the share of the visible text (what the non-streaming read
 * shows) that streamed early, whether the streamed text equals it, and whether markup leaked early.
 */
function markupRows(text: string): string[][] {
  return MARKUP_REPLIES.map(({ name, model, write }) => {
    const reply = write(text);
    const run = streamThrough(reply, model, 5);
    const visible = readVisibleText(reply, { model })?.content ?? reply;
    const notes = [
      run.text === visible ? 'text == non-streaming' : 'STREAMED TEXT != READ TEXT',
      MARKUP.test(run.text.slice(0, run.early)) ? 'MARKUP PASSED ON EARLY' : 'no markup early',
    ];
    const note = notes.filter((line) => line !== '').join('; ');
    const share = percent(run.early / visible.length);
    return [`no call, ${name}`, String(visible.length), String(run.early), share, note];
  });
}

/** The no-call reply (goal) and, per family, a reply whose call comes after the prose (share of that prose). */
function streamingReport(proseChars: number): string {
  const text = prose(proseChars, 33);
  const plain = streamThrough(text, undefined, 5);
  const share = plain.early / text.length;
  const intact = plain.text === text && plain.calls === 0;
  const rows: string[][] = [
    [
      'no call (prose only)',
      String(text.length),
      String(plain.early),
      percent(share),
      `>= ${percent(SHARE_GOAL)}${intact ? '' : ' (TEXT CHANGED)'}`,
    ],
  ];
  rows.push(...heldProseRows(text));
  rows.push(...markupRows(text));
  for (const family of [...FAMILIES, ...COMMON]) {
    if (family.lead === false) continue;
    const args = { path: PATH, text: SHORT_TEXT };
    const reply = family.write(text, args);
    const before = family.write(text, args).indexOf(family.write('', args));
    const run = streamThrough(reply, family.model, 5);
    const content = readTextToolCalls(reply, TOOLS, { model: family.model, generateId: ids() });
    const notes = [
      run.calls === 1 ? '' : `${run.calls} calls found`,
      content?.content.startsWith(run.text.slice(0, run.early).trimEnd()) === false
        ? 'passed on markup the reader cuts out'
        : '',
      content !== undefined && run.text !== content.content ? 'STREAMED TEXT != READ TEXT' : '',
    ];
    const note = notes.filter((line) => line !== '').join('; ');
    rows.push([
      `call at end: ${family.format}`,
      String(before),
      String(run.early),
      percent(run.early / before),
      note,
    ]);
  }
  const header = ['reply', 'chars (before the call)', 'passed before end', 'share', 'goal / note'];
  const table = renderTable(
    `Streaming with tools offered: text passed on before the reply ends (${formatSize(proseChars)} of prose, chunks of 5-40 chars)`,
    header,
    rows,
  );
  const met = share >= SHARE_GOAL && intact;
  return `${table}\ngoal: >= ${percent(SHARE_GOAL)} of a reply with no call passed on before it ends: ${met ? 'met' : 'NOT met'} (${percent(share)})`;
}

/** Runs both parts (about a minute; `quick`: a few seconds) and returns the report tables. */
export async function toolCallFormatsBench(
  options: ToolCallFormatsBenchOptions = {},
): Promise<string> {
  const quick = options.quick === true;
  const sizes: Sizes = { small: KB, large: quick ? 128 * KB : KB * KB };
  const parse = await parseCostReport(sizes, quick ? 5 : 15, quick ? 5 : 20);
  return `${parse}\n\n${streamingReport(20 * KB)}`;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(await toolCallFormatsBench({ quick: process.argv.includes('--quick') }));
}
