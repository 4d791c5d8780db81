// The README's portal route table stays true to the routes the portal API really has.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createPortalApi } from "../../src/portal/api.ts";
import { createTestServices } from "../support/services.ts";

const readme = readFileSync(join(import.meta.dir, "../../README.md"), "utf8");
const portalSection = readme.slice(readme.indexOf("## Portal"), readme.indexOf("## Layout"));

describe("README: Portal", () => {
  test("every portal API route is in the README's route table, and the table names no other", async () => {
    const services = await createTestServices();
    try {
      const routes = new Set(
        createPortalApi(services)
          .routes.filter((r) => r.method !== "ALL")
          .map((r) => `${r.method} ${r.path}`),
      );
      const documented = new Set(
        [...portalSection.matchAll(/`(GET|POST|PATCH|DELETE) (\/[^`?\s]*)[^`]*`/g)].map(
          (m) => `${m[1]} ${m[2]}`,
        ),
      );
      expect([...documented].sort()).toEqual([...routes].sort());
    } finally {
      await services.database.close();
    }
  });
});
