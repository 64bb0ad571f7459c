/** OpenJarvis public API. */
export {};
