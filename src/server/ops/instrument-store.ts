import type { SessionStore } from "../../store/store.js";
import type { ServerMetrics } from "./metrics.js";

/** Calls that are not store operations a request waits on. */
const UNTIMED = new Set<string | symbol>(["init", "close", "constructor"]);

/**
 * The store with every asynchronous call timed into `sessiontree_store_operation_duration_seconds`.
 * A proxy, so a method the store gains later is timed too and nothing else changes (`this` is the
 * store itself inside its methods).
 */
export function instrumentStore(store: SessionStore, metrics: ServerMetrics): SessionStore {
  return new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== "function") return value;
      // Bound to the store itself: its methods may use private fields, which a proxy `this` lacks.
      if (UNTIMED.has(property) || typeof property !== "string") return value.bind(target);
      return (...args: unknown[]) => {
        const started = performance.now();
        const done = (ok: boolean) =>
          metrics.observeStore(property, ok, (performance.now() - started) / 1000);
        let result: unknown;
        try {
          result = value.apply(target, args);
        } catch (error) {
          done(false);
          throw error;
        }
        if (!(result instanceof Promise)) return result;
        return result.then(
          (resolved) => {
            done(true);
            return resolved;
          },
          (error: unknown) => {
            done(false);
            throw error;
          },
        );
      };
    },
  });
}
