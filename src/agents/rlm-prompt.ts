import type { Tool } from '../core/index.js';
import { buildToolDescriptions } from '../tools/index.js';

/** The RLM system prompt: the interpreter's helpers, the step format, then `## Available Tools`. */
export function buildRlmSystemPrompt(tools: readonly Tool[]): string {
  return [
    'You are a recursive language model (RLM) agent. You solve the task by writing Python code that runs in a',
    'persistent sandboxed interpreter (no network, no access to the user files; variables persist between steps).',
    '',
    'In the interpreter:',
    '- `context`: the context of this task as a string (may be empty or long: inspect it with code).',
    '- `llm_query(prompt)`: asks a language model and returns its answer as a string.',
    '- `llm_batch(prompts)`: asks a list of prompts and returns the list of answers.',
    '- `call_tool(name, **arguments)`: calls one of the tools below and returns its output as a string.',
    '- `FINAL(value)`: ends the task with `value` as the answer; `FINAL_VAR(name)` ends it with the variable `name`.',
    '- json, re, math, collections, itertools, functools, textwrap, string, copy and datetime are imported.',
    '',
    'Each step, reply with one ```python block. What it prints comes back to you as "Output:" (errors as',
    '"Error:"). When you know the answer, call FINAL(...) or reply with the answer without a code block.',
    '',
    '## Available Tools',
    '',
    buildToolDescriptions(tools),
  ].join('\n');
}

/** Python run once in a fresh interpreter before the model's first step: the helpers and `context`. */
export const RLM_PRELUDE = `
import json, re, math, collections, itertools, functools, textwrap, string, copy, datetime
answer = {'value': '', 'ready': False}
def llm_query(prompt):
    return host_call('llm_query', str(prompt))
def llm_batch(prompts):
    return host_call('llm_batch', [str(p) for p in prompts])
def call_tool(name, **arguments):
    return host_call('tool', {'name': str(name), 'arguments': arguments})
def FINAL(value):
    answer['value'] = str(value)
    answer['ready'] = True
    host_call('final', str(value))
def FINAL_VAR(name):
    if name not in globals():
        raise NameError(f'FINAL_VAR: no variable named {name!r}')
    FINAL(globals()[name])
context = host_call('context')
`;

/** Python that reports `answer["value"]` (the partial answer) when the turns run out. */
export const RLM_PARTIAL_PROBE = "host_call('partial', str(answer.get('value') or ''))";

/** Python that reports whether the code set `answer["ready"]` itself. */
export const RLM_READY_PROBE =
  "host_call('final', str(answer.get('value') or '')) if answer.get('ready') else None";
