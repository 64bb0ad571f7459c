import { readMarkedCalls } from './lfm2.js';
import type { ToolCallFormat } from './tool-call-format.js';

/**
 * Llama 4: `<|python_start|>[name(a=1), other(b='x')]<|python_end|>` (the pythonic list of its tool template), or
 * the JSON form of the `llama4_json` template inside the same tokens: `{"name": "x", "parameters": {…}}`, several
 * separated by `;`. The end token may be missing at the end of the output; `<|eom|>` / `<|eot|>` after it go
 * with the call. A bare list without the tokens is the whole-reply case `extractTextToolCalls` reads.
 */
export const llama4Format: ToolCallFormat = {
  name: 'llama4',
  markers: ['<|python_start|>'],
  read(reply, tools) {
    try {
      return readMarkedCalls(reply, tools, {
        start: '<|python_start|>',
        end: '<|python_end|>',
        trailing: ['<|eom|>', '<|eot|>'],
        dropEcho: false,
      });
    } catch {
      // Only a bug could land here (every reader is bounded); a reply is never worth a crash.
      return undefined;
    }
  },
};
