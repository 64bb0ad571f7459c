import type { ToolCall } from '../../../core/index.js';
import { indexMarkers, type MarkerHits, type MarkerIndex } from '../text-scan.js';
import { extractTextToolCallsIn, MARKED_CALL_STARTS } from '../text-tool-calls.js';
import { TOOL_CALL_FORMATS, toolCallFormatsFor } from './family-formats.js';
import type { OfferedToolSet, TextCall, ToolCallFormat, VisibleText } from './tool-call-format.js';

/** The answer text with the calls cut out, and the calls with their ids. */
export interface FoundTextToolCalls {
  readonly content: string;
  readonly toolCalls: ToolCall[];
}

/** Options of `readTextToolCalls`. */
export interface ReadTextToolCallsOptions {
  /** The model that wrote the reply (its name selects the formats that also occur in prose). */
  readonly model?: string | undefined;
  /** The formats to try after the common ones (default: chosen from `model`). */
  readonly formats?: readonly ToolCallFormat[];
  /** Makes the id of a call whose text carries none. */
  readonly generateId: () => string;
}

/**
 * The tool calls a model wrote into its reply text: first the common formats marked by a special token
 * (`<tool_call>` JSON, Mistral, Llama 3.1, Granite, Phi-4), then each model family's format whose marker the
 * reply holds, and only then a reply that is nothing but a call or a call standing in prose (so a family's block
 * is never half read as bare JSON). Only offered tools count; never throws; `undefined` when there is no call.
 */
export function readTextToolCalls(
  content: string,
  tools: OfferedToolSet,
  options: ReadTextToolCallsOptions,
): FoundTextToolCalls | undefined {
  if (tools.names.size === 0) return undefined;
  const { generateId } = options;
  // Which markers the reply holds is found once here, not once per format and marker.
  const hits = markersIn(content);
  const hasMarker = (marker: string) => hits.has(marker);
  // Every common format writes a call as a JSON object or list or as `name(…)`: a reply without `{`, `[` or `(`
  // (an XML-style call with text arguments, say) skips both of their passes.
  const common = holdsCallBracket(content);
  const marked = common
    ? extractTextToolCallsIn(content, tools.names, { generateId, only: 'marked', hasMarker })
    : undefined;
  if (marked !== undefined && marked.toolCalls.length > 0) return marked;
  const family = readFamilyFormats(content, tools, options, hits);
  if (family !== undefined) return family;
  const unmarked = common
    ? extractTextToolCallsIn(content, tools.names, { generateId, only: 'unmarked' })
    : undefined;
  return unmarked !== undefined && unmarked.toolCalls.length > 0 ? unmarked : undefined;
}

/** Whether the reply holds a `{`, `[` or `(` (three native searches), without which the common formats hold no call. */
function holdsCallBracket(content: string): boolean {
  return content.includes('{') || content.includes('[') || content.includes('(');
}

/**
 * Each format whose main marker (its first, e.g. its wrapper tag) the reply holds, then each whose other markers
 * it holds: Seed-OSS's `<seed:tool_call>` wrapper wins over Qwen3-Coder reading the bare `<function=` inside it.
 */
function readFamilyFormats(
  content: string,
  tools: OfferedToolSet,
  options: ReadTextToolCallsOptions,
  hits: MarkerHits,
): FoundTextToolCalls | undefined {
  const formats = options.formats ?? toolCallFormatsFor(options.model);
  const plan = markerPlan(formats);
  // Most replies hold no family's marker: told by the one pass over their `<` and a search per other marker of the
  // list, instead of asking for every format's markers in turn (about 150 questions).
  if (!holdsListMarker(hits, plan)) return undefined;
  // Two passes over the formats rather than lists of them: most replies hold one format's markers, or none.
  for (const main of [true, false]) {
    for (let index = 0; index < formats.length; index += 1) {
      const format = formats[index] as ToolCallFormat;
      const ids = plan.ids[index] as readonly number[];
      const holdsMain = holdsMarker(hits, ids, format.markers, 0);
      if (main ? !holdsMain : holdsMain || !holdsAnyMarker(hits, ids, format.markers)) continue;
      const found = readSafely(format, content, tools);
      if (found === undefined || found.calls.length === 0) continue;
      return { content: found.content, toolCalls: withIds(found.calls, options.generateId) };
    }
  }
  return undefined;
}

/** What a list of formats asks of a reply's markers, worked out once per list. */
interface MarkerPlan {
  /** Per format, the numbers of its markers in the marker index (-1: not listed). */
  readonly ids: readonly (readonly number[])[];
  /** The list's markers that the pass over a reply's `<` does not find (NUL for a format without markers). */
  readonly loose: readonly string[];
}

const markerPlans = new WeakMap<readonly ToolCallFormat[], MarkerPlan>();

function markerPlan(formats: readonly ToolCallFormat[]): MarkerPlan {
  let plan = markerPlans.get(formats);
  if (plan === undefined) {
    const index = markerIndex();
    const ids = formats.map((format) => format.markers.map((marker) => index.idOf(marker)));
    const loose = new Set<string>();
    formats.forEach((format, at) => {
      if (format.markers.length === 0) loose.add('\u0000');
      format.markers.forEach((marker, place) => {
        const id = ids[at]?.[place] ?? -1;
        if (id === -1 || !index.isAngled(id)) loose.add(marker);
      });
    });
    plan = { ids, loose: [...loose] };
    markerPlans.set(formats, plan);
  }
  return plan;
}

/**
 * Whether the reply may hold a marker of the list's formats (`holdsMarker` of some format and place): false only
 * when it holds none. A `<` marker of any listed format (this list's or another's) answers true; the passes over
 * the formats then decide.
 */
function holdsListMarker(hits: MarkerHits, plan: MarkerPlan): boolean {
  if (hits.holdsAngled()) return true;
  for (const marker of plan.loose) if (hits.has(marker)) return true;
  return false;
}

/** Whether the reply holds marker `at` of a format (`ids` its numbers); a format without markers asks for NUL. */
function holdsMarker(
  hits: MarkerHits,
  ids: readonly number[],
  markers: readonly string[],
  at: number,
): boolean {
  const id = ids[at];
  if (id === undefined) return hits.has('\u0000');
  return id === -1 ? hits.has(markers[at] as string) : hits.holds(id);
}

function holdsAnyMarker(
  hits: MarkerHits,
  ids: readonly number[],
  markers: readonly string[],
): boolean {
  for (let at = 0; at < ids.length; at += 1) if (holdsMarker(hits, ids, markers, at)) return true;
  return false;
}

/**
 * The text the user should see of a reply that holds no call, when it is written in the markup of one of the
 * model's formats (`options.formats`, else chosen from `options.model`): GPT-OSS's final channel, Functionary's
 * `all` text, Command R's response, GigaChat without its message ends; reasoning the markup sets apart comes
 * separately. `undefined` for a reply without such markup (shown as it is). Never throws.
 */
export function readVisibleText(
  content: string,
  options: Pick<ReadTextToolCallsOptions, 'model' | 'formats'>,
): VisibleText | undefined {
  for (const format of options.formats ?? toolCallFormatsFor(options.model)) {
    try {
      const visible = format.visibleText?.(content);
      if (visible !== undefined) return visible;
    } catch {
      // a reader bug never costs the answer: the reply is shown as it is
    }
  }
  return undefined;
}

let markers: MarkerIndex | undefined;

/**
 * The markers of every format (and of the common marked formats), indexed for one pass over a reply; built on the
 * first reply read, not when the library loads (a program that never reads one does not pay for it).
 */
function markerIndex(): MarkerIndex {
  markers ??= indexMarkers([
    ...MARKED_CALL_STARTS,
    ...TOOL_CALL_FORMATS.flatMap((format) => format.markers),
  ]);
  return markers;
}

function markersIn(content: string): MarkerHits {
  return markerIndex().scan(content);
}

function readSafely(format: ToolCallFormat, content: string, tools: OfferedToolSet) {
  try {
    return format.read(content, tools);
  } catch {
    return undefined; // a reader bug never costs the answer
  }
}

const MODEL_ID = /^[\w.:-]{1,64}$/;

function withIds(calls: readonly TextCall[], generateId: () => string): ToolCall[] {
  // One call (most replies) has no id to share with another: no set of the ids used is made.
  if (calls.length === 1) {
    const call = calls[0] as TextCall;
    const id = call.id !== undefined && MODEL_ID.test(call.id) ? call.id : generateId();
    return [{ id, name: call.name, arguments: call.arguments }];
  }
  const used = new Set<string>();
  return calls.map((call) => {
    const own = call.id !== undefined && MODEL_ID.test(call.id) && !used.has(call.id);
    const id = own ? (call.id as string) : generateId();
    used.add(id);
    return { id, name: call.name, arguments: call.arguments };
  });
}
