export { ScriptedTool, type ScriptedToolOptions, type ScriptedToolStep } from './scripted-tool.js';
