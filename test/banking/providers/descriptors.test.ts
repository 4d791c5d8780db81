import { describe, expect, test } from "bun:test";
import { providerCatalog, realProviderNames } from "../../../src/banking/providers/descriptors.ts";
import { providerNames, realBankProviderNames } from "../../../src/db/schema.ts";

// The tables stand below the features, so the stored provider lists live in db/schema/values.ts
// and the provider catalog describes them: the two must name the same providers.
describe("the provider catalog and the stored provider lists", () => {
  test("the catalog describes exactly the stored provider names, in their order", () => {
    expect(Object.keys(providerCatalog)).toEqual([...providerNames]);
  });

  test("the real banks that activate an account are the catalog's real providers", () => {
    expect([...realBankProviderNames]).toEqual([...realProviderNames]);
  });
});
