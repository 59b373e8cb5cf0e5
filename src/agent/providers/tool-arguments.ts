/** Where a call's arguments that are not JSON are kept (the stream was cut, or the model erred). */
const UNPARSED = "_unparsedArguments";

/**
 * A tool call's streamed arguments as an object. Text that does not parse is kept under
 * `_unparsedArguments` rather than dropped: the call is stored as the model made it, and the tool
 * layer answers it with an error the model can read (`unparsedArguments`), never running it.
 */
export function parseToolArguments(text: string): Record<string, unknown> {
  if (!text.trim()) return {};
  try {
    const value = JSON.parse(text) as unknown;
    return value && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : { value };
  } catch {
    return { [UNPARSED]: text };
  }
}

/** The text of arguments that did not parse, if these are such. */
export function unparsedArguments(args: unknown): string | undefined {
  if (!args || typeof args !== "object" || !(UNPARSED in args)) return undefined;
  return String((args as Record<string, unknown>)[UNPARSED]);
}
