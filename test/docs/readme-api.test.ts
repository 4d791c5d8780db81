import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { buildProgram } from "../../src/cli/program.ts";
import { createApp } from "../../src/server/app.ts";
import { silentCliIo } from "../support/cli.ts";
import { createTestServices } from "../support/services.ts";

const readme = readFileSync(join(import.meta.dir, "../..", "README.md"), "utf8");

describe("README's API and keys sections stay true to the code", () => {
  test("every /v1 route of the OpenAPI document is in the README's API table", async () => {
    const services = await createTestServices();
    const document = (await (await createApp(services).request("/v1/openapi.json")).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    await services.database.close();
    for (const [path, item] of Object.entries(document.paths)) {
      for (const method of Object.keys(item)) {
        expect(readme).toContain(`| \`${method.toUpperCase()} /v1${path}\` |`);
      }
    }
  });

  test("every `svc keys` command is in the README's command table", async () => {
    const program = await buildProgram(silentCliIo);
    const keys = program.commands.find((command) => command.name() === "keys");
    const names = keys?.commands.map((command) => command.name()) ?? [];
    expect(names.sort()).toEqual(["create", "list", "revoke"]);
    for (const name of names) expect(readme).toContain(`| \`svc keys ${name} `);
  });
});
