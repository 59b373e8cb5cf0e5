import { MemoryStore } from "../../src/store/memory/memory-store.js";
import { runConformance } from "./conformance/index.js";

runConformance({
  name: "memory",
  create: async () => new MemoryStore(),
  capabilities: { multiProcess: false, persistent: false },
});
