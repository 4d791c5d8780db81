import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describeConfigKeys } from "../../src/config/config.ts";

const root = join(import.meta.dir, "../..");
const readme = readFileSync(join(root, "README.md"), "utf8");

describe("README stays true to the code", () => {
  test("every configuration key is documented with its environment variable and flag", () => {
    for (const spec of describeConfigKeys()) {
      expect(readme).toContain(`| \`${spec.key}\` | \`${spec.env}\` | \`${spec.flag}\` |`);
    }
  });

  test("CI runs exactly the README's test command", () => {
    const testCommand = readme.match(/Run the whole test suite[\s\S]*?```sh\n(.+)\n```/)?.[1];
    expect(testCommand).toBeDefined();
    expect(readFileSync(join(root, ".ci/run"), "utf8")).toContain(`\n${testCommand}\n`);
  });
});
