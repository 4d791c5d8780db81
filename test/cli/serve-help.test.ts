import { describe, expect, test } from "bun:test";
import { describeConfigKeys } from "../../src/config/config.ts";
import { runSvc } from "../support/cli.ts";
import { makeTempDir } from "../support/temp.ts";

describe("svc serve --help", () => {
  test("names every setting's flag with what it is for, its environment variable and its default", async () => {
    const help = await runSvc(["serve", "--help"], { cwd: makeTempDir() });
    expect(help.code).toBe(0);
    // commander wraps long lines: compare with the whitespace folded.
    const text = help.stdout.replace(/\s+/g, " ");
    for (const spec of describeConfigKeys().filter((s) => s.key !== "dataDir")) {
      expect(text).toContain(spec.flag);
      expect(text).toContain(`${spec.help} [${spec.env}`);
      if (spec.default !== undefined) expect(text).toContain(`default ${spec.default}]`);
    }
  });
});
