import type { Tool } from '../core/index.js';
import { buildToolDescriptions } from '../tools/index.js';

/** Version of the structured-mode prompt template (bump when its wording changes). */
export const STRUCTURED_PROMPT_VERSION = '1.0';

/** The heading each tool category gets in the selection guide; other categories are upper-cased. */
const CATEGORY_LABELS: Readonly<Record<string, string>> = {
  math: 'MATH PROBLEMS:',
  utility: 'UTILITY / CODING TASKS:',
  memory: 'GENERAL Q&A / FACTUAL:',
  llm: 'REASONING/LOGIC:',
};

/**
 * The tool selection guide: `Choose tools based on task type:`, then per category (in first-seen order; no
 * category counts as `llm`) a heading and one `- name` line per tool, with a blank line after each group.
 */
export function buildToolSelectionGuide(tools: readonly Tool[]): string {
  if (tools.length === 0) return 'No tools are available: answer directly with FINAL_ANSWER.';
  const groups = new Map<string, string[]>();
  for (const tool of tools) {
    const category = tool.spec.category || 'llm';
    const names = groups.get(category) ?? [];
    names.push(tool.spec.name);
    groups.set(category, names);
  }
  const lines = ['Choose tools based on task type:'];
  for (const [category, names] of groups) {
    lines.push(CATEGORY_LABELS[category] ?? `${category.toUpperCase()}:`);
    for (const name of names) lines.push(`- ${name}`);
    lines.push('');
  }
  return lines.join('\n').trimEnd();
}

const RESPONSE_FORMAT = `To call a tool, reply with exactly these three lines and nothing after them:
THOUGHT: <why this tool is the right next step>
TOOL: <the tool name, exactly as listed above>
INPUT: <the arguments as a JSON object, e.g. {"expression": "15 * 7 + 23"}; a tool with one text parameter also takes the plain text, e.g. 15 * 7 + 23>

The tool's result comes back as "Observation: <result>". Once the observations answer the task, reply with:
THOUGHT: <how the observations answer the task>
FINAL_ANSWER: <the complete answer for the user>`;

const RULES_WITH_TOOLS = [
  'Call at least one tool before you give the FINAL_ANSWER.',
  'Pick the tool that fits the kind of task (see the selection guide).',
  'Call one tool per reply, then stop and wait for its observation; never write an observation yourself.',
  'Use only the tools listed above, spelled exactly as shown.',
  'Start each line with its label: THOUGHT:, TOOL:, INPUT: or FINAL_ANSWER:.',
  'Base the FINAL_ANSWER on the observations and state the result plainly.',
];

const RULES_WITHOUT_TOOLS = [
  'Start each line with its label: THOUGHT: or FINAL_ANSWER:.',
  'State the result plainly in the FINAL_ANSWER.',
];

/**
 * The system prompt of the orchestrator's structured mode: `=== AVAILABLE TOOLS ===` (tool sections with cost
 * estimates), `=== TOOL SELECTION GUIDE ===`, `=== RESPONSE FORMAT ===` (THOUGHT/TOOL/INPUT, then
 * THOUGHT/FINAL_ANSWER) and `=== CRITICAL RULES ===`.
 */
export function buildStructuredSystemPrompt(tools: readonly Tool[]): string {
  const rules = tools.length === 0 ? RULES_WITHOUT_TOOLS : RULES_WITH_TOOLS;
  const closing =
    tools.length === 0
      ? 'Now solve the task.'
      : 'Now solve the task. Use at least one tool, and choose the one that fits the task best.';
  return [
    'You are an orchestrator agent: you solve tasks step by step by calling tools, then give a final answer.',
    '',
    '=== AVAILABLE TOOLS ===',
    buildToolDescriptions(tools, { includeCost: true }),
    '',
    '=== TOOL SELECTION GUIDE ===',
    buildToolSelectionGuide(tools),
    '',
    '=== RESPONSE FORMAT ===',
    RESPONSE_FORMAT,
    '',
    '=== CRITICAL RULES ===',
    ...rules.map((rule, index) => `${index + 1}. ${rule}`),
    '',
    closing,
  ].join('\n');
}
