import type { Command } from "commander";
import type { Cli } from "./command-context.js";
import * as archiveCommand from "./commands/archive.js";
import * as backupCommand from "./commands/backup.js";
import * as chatCommand from "./commands/chat.js";
import * as checkoutCommand from "./commands/checkout.js";
import * as diffCommand from "./commands/diff.js";
import * as exportCommand from "./commands/export.js";
import * as forkCommand from "./commands/fork.js";
import * as fsckCommand from "./commands/fsck.js";
import * as importCommand from "./commands/import.js";
import * as keysCommand from "./commands/keys.js";
import * as labelCommand from "./commands/label.js";
import * as loginCommand from "./commands/login.js";
import * as lsCommand from "./commands/ls.js";
import * as mcpCommand from "./commands/mcp.js";
import * as migrateCommand from "./commands/migrate.js";
import * as nameCommand from "./commands/name.js";
import * as repairCommand from "./commands/repair.js";
import * as searchCommand from "./commands/search.js";
import * as serveCommand from "./commands/serve.js";
import * as showCommand from "./commands/show.js";
import * as statsCommand from "./commands/stats.js";
import * as syncCommand from "./commands/sync.js";
import * as treeCommand from "./commands/tree.js";
import * as viewCommand from "./commands/view.js";
import { buildProgram } from "./program.js";
import { GLOBAL_OPTIONS, rootProgram } from "./root-program.js";

type Register = (program: Command, cli: Cli) => void;

/**
 * Every command name (and alias) with the function that registers it. The same commands as
 * program.ts's `buildProgram` (test/cli/command-table.unit.test.ts checks it); a command missing
 * here still works, through the whole program, only slower.
 */
const COMMANDS: ReadonlyMap<string, Register> = new Map(
  Object.entries({
    ls: lsCommand.register,
    tree: treeCommand.register,
    show: showCommand.register,
    context: showCommand.register,
    stats: statsCommand.register,
    search: searchCommand.register,
    diff: diffCommand.register,
    checkout: checkoutCommand.register,
    label: labelCommand.register,
    name: nameCommand.register,
    fork: forkCommand.register,
    extract: forkCommand.register,
    export: exportCommand.register,
    import: importCommand.register,
    fsck: fsckCommand.register,
    repair: repairCommand.register,
    migrate: migrateCommand.register,
    mcp: mcpCommand.register,
    view: viewCommand.register,
    chat: chatCommand.register,
    serve: serveCommand.register,
    "purge-deleted": serveCommand.registerPurge,
    keys: keysCommand.register,
    backup: backupCommand.register,
    restore: backupCommand.register,
    archive: archiveCommand.register,
    sync: syncCommand.register,
    login: loginCommand.register,
    logout: loginCommand.register,
  }),
);

/** The command names `programFor` can register alone (the test compares them with `buildProgram`). */
export const COMMAND_NAMES: readonly string[] = [...COMMANDS.keys()];

/** What `invokedCommand` returns for `--version` (or `-V`) before any command. */
export const VERSION_FLAG = Symbol("--version");

/**
 * The program to parse `argv` with. Building all of it (commander objects for thirty commands and
 * their options) is time every run would spend for nothing, so a run of one command registers just
 * that command, and `--version` none: commander then parses and reports exactly as with the whole
 * program, whose other commands it would never look at. Help, `help`, an unknown command or option
 * and no command at all get the whole program, so their output (command lists, suggestions) is
 * the same as ever.
 */
export function programFor(argv: readonly string[], cli: Cli): Command {
  const invoked = invokedCommand(argv);
  if (invoked === VERSION_FLAG) return rootProgram(cli);
  const register = invoked === undefined ? undefined : COMMANDS.get(invoked);
  if (register === undefined) return buildProgram(cli);
  const program = rootProgram(cli);
  register(program, cli);
  return program;
}

/**
 * What commander will act on first in `argv`: the command's name, `VERSION_FLAG`, or undefined
 * (help, an unknown option, `--`, nothing). Mirrors commander's reading of the global options
 * before the command: `--root` takes the next argument whatever it is, `--pi` the next one unless
 * it looks like an option, `--root=dir` and `--pi=dir` carry theirs.
 */
export function invokedCommand(argv: readonly string[]): string | typeof VERSION_FLAG | undefined {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (!looksLikeOption(arg)) return arg;
    if (arg === "--version" || arg === "-V") return VERSION_FLAG;
    const withValue = arg.startsWith("--") && arg.indexOf("=") > 2;
    const takes = GLOBAL_OPTIONS.get(withValue ? arg.slice(0, arg.indexOf("=")) : arg);
    if (takes === undefined || (withValue && takes === "none")) return undefined;
    if (withValue) continue;
    if (takes === "required") i++;
    else if (takes === "optional" && i + 1 < argv.length && !looksLikeOption(argv[i + 1] as string)) i++;
  }
  return undefined;
}

/** Commander's test for an option: a dash and something more (a lone `-` is an argument). */
function looksLikeOption(arg: string): boolean {
  return arg.length > 1 && arg.startsWith("-");
}
