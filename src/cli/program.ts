import type { Command } from "commander";
import type { Cli } from "./command-context.js";
import * as archive from "./commands/archive.js";
import * as backup from "./commands/backup.js";
import * as chat from "./commands/chat.js";
import * as checkout from "./commands/checkout.js";
import * as diff from "./commands/diff.js";
import * as exportCommand from "./commands/export.js";
import * as fork from "./commands/fork.js";
import * as fsck from "./commands/fsck.js";
import * as importCommand from "./commands/import.js";
import * as keys from "./commands/keys.js";
import * as label from "./commands/label.js";
import * as login from "./commands/login.js";
import * as ls from "./commands/ls.js";
import * as mcp from "./commands/mcp.js";
import * as migrate from "./commands/migrate.js";
import * as name from "./commands/name.js";
import * as repair from "./commands/repair.js";
import * as search from "./commands/search.js";
import * as serve from "./commands/serve.js";
import * as show from "./commands/show.js";
import * as stats from "./commands/stats.js";
import * as sync from "./commands/sync.js";
import * as tree from "./commands/tree.js";
import * as view from "./commands/view.js";
import { rootProgram } from "./root-program.js";

/**
 * The whole `sessiontree` program: every command, in the order help lists them. `main` builds it
 * only for help, `--help` and what names no command; a run of one command registers just that one
 * (command-table.ts, which must list the same commands: test/cli/command-table.unit.test.ts).
 *
 * A command module holds only its options and help, and its action imports what does the work, so
 * each run loads one command's code (`ls` never loads the server, the databases or the agent).
 * scripts/cli-modules.mjs shows what a command loads.
 */
export function buildProgram(cli: Cli): Command {
  const program = rootProgram(cli);
  for (const command of [
    ls,
    tree,
    show,
    stats,
    search,
    diff,
    checkout,
    label,
    name,
    fork,
    exportCommand,
    importCommand,
    fsck,
    repair,
    migrate,
    mcp,
  ]) {
    command.register(program, cli);
  }
  // Commands of other parts of the project: the viewer, the agent chat, the HTTP service and its keys.
  view.register(program);
  chat.register(program);
  serve.register(program);
  keys.register(program);
  backup.register(program);
  serve.registerPurge(program);
  archive.register(program);
  sync.register(program, cli);
  login.register(program, cli);
  return program;
}
