import type { Command } from "commander";
import type { SessionManager } from "../session/session-manager.js";
import { EXIT_FINDINGS } from "./exit.js";
import { type CliIO, type Colors, colorsFor } from "./io.js";
import { type GlobalOptions, type Location, locationFrom } from "./location.js";
import { resolveSession } from "./resolve.js";

/** One run of the program: its streams and the exit status its commands set. */
export class Cli {
  exitCode = 0;
  constructor(readonly io: CliIO) {}

  /** What an action needs: streams, colours, `--json`, the location, from the command's options. */
  context(command: Command): CommandContext {
    const globals = command.optsWithGlobals<GlobalOptions>();
    return new CommandContext(this, globals);
  }
}

export class CommandContext {
  readonly io: CliIO;
  readonly colors: Colors;
  readonly json: boolean;
  private cachedLocation: Location | undefined;

  constructor(
    private readonly cli: Cli,
    private readonly globals: GlobalOptions,
  ) {
    this.io = cli.io;
    this.json = globals.json === true;
    this.colors = colorsFor(cli.io);
  }

  get location(): Location {
    this.cachedLocation ??= locationFrom(this.globals, this.io);
    return this.cachedLocation;
  }

  /** Prints lines of text (people) — nothing when `--json` is on. */
  print(...lines: string[]): void {
    if (!this.json) this.io.out(lines.length > 0 ? `${lines.join("\n")}\n` : "\n");
  }

  /** Prints the command's JSON result (scripts): one document on stdout. */
  printJson(value: unknown): void {
    this.io.out(`${JSON.stringify(value, null, 2)}\n`);
  }

  /**
   * Says which session a write went to, its id and its file, under the line that says what was
   * written: a session picked by default must never be a surprise. (`--json` results carry both.)
   */
  printWrittenTo(sessionId: string, path: string): void {
    this.print(this.colors.dim(`  session ${sessionId} · ${path}`));
  }

  /** Marks the run as having findings (exit 1) without stopping it. */
  findings(): void {
    this.cli.exitCode = Math.max(this.cli.exitCode, EXIT_FINDINGS);
  }

  /** The file of the session a user named (path, id, id prefix; default: latest of the cwd). */
  sessionPath(ref: string | undefined): string {
    return resolveSession(this.location, ref, this.io);
  }

  /**
   * Opens a session through the pi-compatible manager, runs `use`, and closes it. With `write`,
   * the session's writer lease is taken first: a session an agent owns is refused (`lease_held`).
   * With `whole`, a large session is read whole at open, once, for a command that uses all of it
   * (by default only the leaf's context is read, through the sidecar index, and the rest on demand).
   */
  async withSession<T>(
    ref: string | undefined,
    use: (manager: SessionManager, path: string) => T,
    options: { write?: boolean; whole?: boolean } = {},
  ): Promise<T> {
    const path = this.sessionPath(ref);
    // Loaded on use: listing and checking never open a session through the manager.
    const { SessionManager } = await import("../session/session-manager.js");
    const lease = options.write ? "fail" : undefined;
    const manager = SessionManager.open(path, undefined, undefined, {
      root: this.location.root,
      lease,
      open: options.whole ? "whole" : "resume",
    });
    try {
      return use(manager, path);
    } finally {
      manager.close();
    }
  }
}
