export * from "./context.js";
export * from "./entry.js";
export * from "./errors.js";
export * from "./ids.js";
export * from "./issues.js";
export * from "./messages.js";
export * from "./tree.js";
export * from "./validate.js";
