import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { Cli } from "../../src/cli/command-context.js";
import { COMMAND_NAMES, invokedCommand, programFor, VERSION_FLAG } from "../../src/cli/command-table.js";
import type { CliIO } from "../../src/cli/io.js";
import { buildProgram } from "../../src/cli/program.js";

function quietCli(): Cli {
  const io: CliIO = {
    out: () => {},
    err: () => {},
    stdoutIsTTY: false,
    stderrIsTTY: false,
    env: {},
    cwd: "/",
    columns: 100,
  };
  return new Cli(io);
}

describe("a run of one command registers just that command", () => {
  test("the table names every command and alias of the whole program, and nothing else", () => {
    const names = buildProgram(quietCli()).commands.flatMap((command) => [
      command.name(),
      ...command.aliases(),
    ]);
    assert.deepEqual([...COMMAND_NAMES].sort(), names.sort());
  });

  test("each name in the table registers the command of that name (or alias)", () => {
    for (const name of COMMAND_NAMES) {
      const program = programFor([name], quietCli());
      const found = program.commands.filter(
        (command) => command.name() === name || command.aliases().includes(name),
      );
      assert.equal(found.length, 1, name);
      assert.ok(program.commands.length <= 2, `${name} registered ${program.commands.length} commands`);
    }
  });

  test("help, no command, an unknown command or option get the whole program", () => {
    const all = buildProgram(quietCli()).commands.length;
    for (const argv of [
      [],
      ["--help"],
      ["-h"],
      ["help", "ls"],
      ["lss"],
      ["--bogus", "ls"],
      ["--", "ls"],
      ["toString"],
    ])
      assert.equal(programFor(argv, quietCli()).commands.length, all, argv.join(" "));
    assert.equal(programFor(["--version"], quietCli()).commands.length, 0);
  });

  test("the command is found after the global options as commander reads them", () => {
    assert.equal(invokedCommand(["ls", "--all"]), "ls");
    assert.equal(invokedCommand(["--json", "tree"]), "tree");
    assert.equal(invokedCommand(["--root", "ls", "tree"]), "tree", "--root takes any next argument");
    assert.equal(invokedCommand(["--root", "-x", "tree"]), "tree");
    assert.equal(invokedCommand(["--root=/r", "show"]), "show");
    assert.equal(invokedCommand(["--pi", "ls"]), undefined, "--pi takes `ls` as its directory");
    assert.equal(invokedCommand(["--pi", "/p", "ls"]), "ls");
    assert.equal(invokedCommand(["--pi", "--json", "ls"]), "ls", "--pi takes no option as its value");
    assert.equal(invokedCommand(["--pi=/p", "ls"]), "ls");
    assert.equal(
      invokedCommand(["--json=1", "ls"]),
      undefined,
      "--json takes no value: commander refuses it",
    );
    assert.equal(invokedCommand(["--root"]), undefined);
    assert.equal(invokedCommand(["--json", "--version"]), VERSION_FLAG);
    assert.equal(invokedCommand(["-V"]), VERSION_FLAG);
    assert.equal(invokedCommand(["-", "ls"]), "-", "a lone dash is an argument, as in commander");
  });
});
