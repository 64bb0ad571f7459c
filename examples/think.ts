// tools.md "Think": the thought is echoed back.
import { ThinkTool } from '../src/index.js';

const think = new ThinkTool();
const result = await think.execute({ thought: 'Let me break this problem into steps...' });
console.log(result.content); // "Let me break this problem into steps..."
console.log(result.success); // true
