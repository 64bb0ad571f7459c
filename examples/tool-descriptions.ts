// tools.md "buildToolDescriptions": the Markdown tool sections of text-protocol system prompts.
import { buildToolDescriptions, CalculatorTool, ThinkTool } from '../src/index.js';

const tools = [new CalculatorTool(), new ThinkTool()];
console.log(buildToolDescriptions(tools));
