import { InvalidArgumentError } from "commander";

// Commander parsers for option values: a bad value is a usage error (exit 2) naming what was expected.
//
// Numbers are matched as text before they are converted: `Number("")` and `Number("  ")` are 0,
// and `Number("0x10")`, `Number("1e3")` are numbers too. A unit or a container that passes
// `--retention-days ${DAYS}` with DAYS unset hands us "": read as 0 it would purge the whole trash.

/** `value` as an integer when it is written as one (digits, a leading minus) and exact; else undefined. */
function writtenInteger(value: string): number | undefined {
  if (!/^-?[0-9]+$/.test(value)) return undefined;
  const n = Number(value);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** A count: a whole number ≥ 0. */
export function parseCount(value: string): number {
  const n = writtenInteger(value);
  if (n === undefined || n < 0) throw new InvalidArgumentError(`expected a whole number, got "${value}"`);
  return n;
}

/** An integer from `min` to `max`. */
export function parseInteger(min: number, max: number): (value: string) => number {
  return (value: string): number => {
    const n = writtenInteger(value);
    if (n === undefined || n < min || n > max)
      throw new InvalidArgumentError(`expected an integer from ${min} to ${max}, got "${value}"`);
    return n;
  };
}

/** A number of days ≥ 0, fractions allowed (`30`, `0.5`): digits with at most one point. */
export function parseDays(value: string): number {
  const n = /^(?:[0-9]+(?:\.[0-9]+)?|\.[0-9]+)$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isFinite(n))
    throw new InvalidArgumentError(`expected a number of days >= 0, like 30 or 0.5, got "${value}"`);
  return n;
}

/**
 * A host name or address to listen on. Empty is refused, not taken as "every interface" (what node
 * makes of it): a server reachable from the network is asked for by name, with 0.0.0.0 or ::.
 */
export function parseHost(value: string): string {
  if (!/^[^\s/]+$/.test(value))
    throw new InvalidArgumentError(
      `expected a host name or address (127.0.0.1, 0.0.0.0, ::), got "${value}"`,
    );
  return value;
}
