import { InvalidArgumentError } from "commander";

// Commander parsers for option values: a bad value is a usage error (exit 2) naming what was expected.

/** A count: a whole number ≥ 0. */
export function parseCount(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0)
    throw new InvalidArgumentError(`expected a whole number, got "${value}"`);
  return n;
}

/** An integer from `min` to `max`. */
export function parseInteger(min: number, max: number): (value: string) => number {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min || n > max)
      throw new InvalidArgumentError(`expected an integer from ${min} to ${max}`);
    return n;
  };
}

/** A number of days ≥ 0, fractions allowed. */
export function parseDays(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new InvalidArgumentError("expected a number of days >= 0");
  return n;
}
