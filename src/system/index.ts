export { BUILTIN_TOOLS, registerBuiltins } from './builtins.js';
