import { describe, expect, test } from "bun:test";
import { buildProgram, commandModules } from "../../src/cli/program.ts";
import { silentCliIo as io } from "../support/cli.ts";

const names = (program: Awaited<ReturnType<typeof buildProgram>>) =>
  program.commands.map((command) => command.name());

describe("a command loads only its own module", () => {
  test("each module's listed names are exactly the commands it registers", async () => {
    for (const module of commandModules) {
      for (const name of module.names) {
        expect(names(await buildProgram(io, ["--data-dir", "d", name, "--help"]))).toEqual([
          ...module.names,
        ]);
      }
    }
  });

  test("without a command word, or with one that is no command, every command is registered", async () => {
    const every = commandModules.flatMap((module) => module.names);
    expect(names(await buildProgram(io))).toEqual(every);
    expect(names(await buildProgram(io, ["--help"]))).toEqual(every);
    expect(names(await buildProgram(io, ["help", "serve"]))).toEqual(every);
    expect(names(await buildProgram(io, ["no-such-command"]))).toEqual(every);
    expect(names(await buildProgram(io, ["--config", "serve"]))).toEqual(every);
  });
});
