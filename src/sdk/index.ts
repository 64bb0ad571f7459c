export type { AskOptions, AskResult } from './ask-result.js';
export { Jarvis, type JarvisOptions } from './jarvis.js';
export { MemoryHandle, type MemorySearchOptions, type MemoryStats } from './memory-handle.js';
export { type SessionAskResult, SessionHandle } from './session-handle.js';
