// The committed types are what the current routes generate: a route change without
// `bun run client:generate` fails here.
import { expect, test } from "bun:test";
import { generateSchema, schemaPath, serviceDocument } from "../scripts/schema.ts";

test("src/schema.ts is generated from the service's current OpenAPI document", async () => {
  const committed = await Bun.file(schemaPath).text();
  expect(committed).toBe(await generateSchema(await serviceDocument()));
});
