import type { TSchema } from "@sinclair/typebox";
import { type TypeCheck, TypeCompiler } from "@sinclair/typebox/compiler";
import { Value } from "@sinclair/typebox/value";
import { HttpError } from "./http-error.js";

const compiled = new WeakMap<TSchema, TypeCheck<TSchema>>();

function checker(schema: TSchema): TypeCheck<TSchema> {
  let check = compiled.get(schema);
  if (!check) {
    check = TypeCompiler.Compile(schema);
    compiled.set(schema, check);
  }
  return check;
}

/** Validates `value` against `schema`, or throws a 400 naming the first problem and where. */
export function validate<T>(schema: TSchema, value: unknown, where: string): T {
  const check = checker(schema);
  if (check.Check(value)) return value as T;
  const first = check.Errors(value).First();
  const path = first?.path ? `${where}${first.path.replaceAll("/", ".")}` : where;
  throw new HttpError(400, "invalid_request", `${path}: ${first?.message ?? "invalid"}`);
}

/** Query strings are text: numbers and booleans are converted before validation. */
export function validateQuery<T>(schema: TSchema, raw: Record<string, string>): T {
  requireIntegerText(schema, raw);
  return validate<T>(schema, Value.Convert(schema, { ...raw }), "query");
}

/**
 * TypeBox's conversion truncates `1.5`, `1e1` or `0x10` to an integer; an integer parameter must
 * be written as one, so such a value is refused instead of silently read as another number.
 */
function requireIntegerText(schema: TSchema, raw: Record<string, string>): void {
  const properties = (schema as { properties?: Record<string, TSchema> }).properties ?? {};
  for (const [name, property] of Object.entries(properties)) {
    const value = raw[name];
    if (property.type === "integer" && value !== undefined && !/^-?\d{1,15}$/.test(value)) {
      throw new HttpError(400, "invalid_request", `query.${name}: must be an integer`);
    }
  }
}
