export { type AskOptions, type AskResult, Jarvis, type JarvisOptions } from './jarvis.js';
export { MemoryHandle, type MemorySearchOptions, type MemoryStats } from './memory-handle.js';
