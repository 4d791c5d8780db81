// The OpenAPI document stays clean for the standard linters' recommended rules:
// - Redocly's "recommended" ruleset, run with Redocly's own engine (@redocly/openapi-core, the
//   library inside @redocly/cli), offline;
// - Spectral's "spectral:oas" recommended rules, checked here one by one under their Spectral
//   names (the Spectral CLI is not a dependency: each rule below is small and its meaning is in
//   Spectral's OpenAPI ruleset documentation).
// Exception, explained: Redocly's `no-server-example.com` fires when the instance's base URL is
// localhost, which the document names on purpose (servers is this instance's base URL, and a
// development instance is on localhost); with a real base URL it is clean.
import { afterAll, describe, expect, test } from "bun:test";
import { createConfig, lintFromString } from "@redocly/openapi-core";
import { startApiHarness } from "../support/api.ts";

const api = await startApiHarness({ config: { baseUrl: "https://bank-api.acme.test" } });
afterAll(() => api.stop());
const text = await (await api.get("/v1/openapi.json", null)).text();
// biome-ignore lint/suspicious/noExplicitAny: walking a JSON document
const document = JSON.parse(text) as any;

async function redoclyProblems(source: string) {
  const config = await createConfig({ extends: ["recommended"] });
  const problems = await lintFromString({ source, absoluteRef: "/openapi.json", config });
  return problems.map((p) => `${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`);
}

const methods = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];
// biome-ignore lint/suspicious/noExplicitAny: walking a JSON document
function operations(): { where: string; path: string; operation: any }[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item as object)
      .filter(([method]) => methods.includes(method))
      .map(([method, operation]) => ({ where: `${method} ${path}`, path, operation })),
  );
}

/** Every string value anywhere in the document, with its JSON pointer. */
function strings(value: unknown, pointer = ""): [string, string][] {
  if (typeof value === "string") return [[pointer, value]];
  if (Array.isArray(value)) return value.flatMap((item, i) => strings(item, `${pointer}/${i}`));
  if (value && typeof value === "object") {
    return Object.entries(value).flatMap(([key, item]) => strings(item, `${pointer}/${key}`));
  }
  return [];
}

describe("Redocly recommended rules", () => {
  test("report nothing on the document of an instance with a real base URL", async () => {
    expect(await redoclyProblems(text)).toEqual([]);
  });

  test("on a localhost instance, only the explained no-server-example.com", async () => {
    const local = JSON.stringify({ ...document, servers: [{ url: "http://localhost:8080/v1" }] });
    const problems = await redoclyProblems(local);
    expect(problems.map((p) => p.split(" ")[0])).toEqual(["no-server-example.com"]);
  });
});

describe("Spectral spectral:oas recommended rules", () => {
  test("info-contact, info-description, info-license, license-url", () => {
    expect(document.info.contact).toBeObject();
    expect(document.info.description.length).toBeGreaterThan(0);
    expect(document.info.license.name.length).toBeGreaterThan(0);
    expect(URL.canParse(document.info.license.url)).toBe(true);
  });

  test("oas3-api-servers, oas3-server-trailing-slash", () => {
    expect(document.servers.length).toBeGreaterThan(0);
    for (const server of document.servers) expect(server.url).not.toEndWith("/");
  });

  test("operation-description, operation-operationId, operation-operationId-unique, operation-tags, operation-success-response", () => {
    const ids = new Set<string>();
    for (const { where, operation } of operations()) {
      expect({ where, description: (operation.description ?? "").length > 0 }).toEqual({
        where,
        description: true,
      });
      expect({ where, operationId: typeof operation.operationId }).toEqual({
        where,
        operationId: "string",
      });
      expect(ids.has(operation.operationId)).toBe(false);
      ids.add(operation.operationId);
      expect(operation.tags?.length ?? 0).toBeGreaterThan(0);
      expect(Object.keys(operation.responses).some((code) => /^[23]/.test(code))).toBe(true);
    }
  });

  test("operation-tag-defined, openapi-tags, tag-description (the Events tag included)", () => {
    const defined = new Map<string, string>(
      document.tags.map((tag: { name: string; description: string }) => [
        tag.name,
        tag.description,
      ]),
    );
    expect(defined.has("Events")).toBe(true);
    for (const { where, operation } of operations()) {
      for (const tag of operation.tags)
        expect({ where, tag, defined: defined.has(tag) }).toEqual({
          where,
          tag,
          defined: true,
        });
    }
    for (const [name, description] of defined) {
      expect({ name, described: (description ?? "").length > 0 }).toEqual({
        name,
        described: true,
      });
    }
  });

  test("path-keys-no-trailing-slash, path-not-include-query, path-params, operation-parameters", () => {
    for (const { where, path, operation } of operations()) {
      expect(path === "/" || !path.endsWith("/")).toBe(true);
      expect(path).not.toContain("?");
      const parameters = operation.parameters ?? [];
      const templated = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      const inPath = parameters
        .filter((p: { in: string }) => p.in === "path")
        .map((p: { name: string }) => p.name);
      expect({ where, params: [...inPath].sort() }).toEqual({
        where,
        params: [...templated].sort(),
      });
      const keys = parameters.map((p: { in: string; name: string }) => `${p.in}:${p.name}`);
      expect(new Set(keys).size).toBe(keys.length);
    }
  });

  test("no-eval-in-markdown, no-script-tags-in-markdown", () => {
    for (const [pointer, value] of strings(document)) {
      if (!/\/(description|title)$/.test(pointer)) continue;
      expect({ pointer, script: /<script/i.test(value), evaluated: /eval\(/.test(value) }).toEqual({
        pointer,
        script: false,
        evaluated: false,
      });
    }
  });

  test("typed-enum, duplicated-entry-in-enum", () => {
    const visit = (value: unknown, pointer: string) => {
      if (Array.isArray(value)) {
        for (const [i, item] of value.entries()) visit(item, `${pointer}/${i}`);
      } else if (value && typeof value === "object") {
        const schema = value as { enum?: unknown[]; type?: string };
        if (Array.isArray(schema.enum)) {
          expect({ pointer, unique: new Set(schema.enum).size === schema.enum.length }).toEqual({
            pointer,
            unique: true,
          });
          if (schema.type) {
            const typed = schema.enum.every((item) =>
              schema.type === "integer" ? Number.isInteger(item) : typeof item === schema.type,
            );
            expect({ pointer, typed }).toEqual({ pointer, typed: true });
          }
        }
        for (const [key, item] of Object.entries(value)) visit(item, `${pointer}/${key}`);
      }
    };
    visit(document, "");
  });

  test("oas3-unused-component: every component schema is referenced", () => {
    const refs = new Set(
      strings(document)
        .filter(([pointer]) => pointer.endsWith("/$ref"))
        .map(([, ref]) => ref),
    );
    for (const name of Object.keys(document.components.schemas ?? {})) {
      expect({ name, used: refs.has(`#/components/schemas/${name}`) }).toEqual({
        name,
        used: true,
      });
    }
  });
});

describe("the fields the linters cannot judge", () => {
  test("cursor has minLength 1, and an empty cursor is refused naming it", async () => {
    for (const { where, operation } of operations()) {
      const cursor = (operation.parameters ?? []).find(
        (p: { name: string }) => p.name === "cursor",
      );
      if (cursor)
        expect({ where, minLength: cursor.schema.minLength }).toEqual({ where, minLength: 1 });
    }
    const tenant = await api.addTenant("cursor@example.com");
    const response = await api.get("/v1/accounts?cursor=", tenant.key);
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message).toContain(
      "cursor",
    );
  });

  test("the last_event_id query parameter says what its header twin says about unknown ids", () => {
    const stream = document.paths["/events/stream"].get;
    const query = stream.parameters.find((p: { name: string }) => p.name === "last_event_id");
    const header = stream.parameters.find((p: { name: string }) => p.name === "last-event-id");
    const sentence = "Unknown or another account's: 400 before anything is streamed.";
    expect(header.description).toContain(sentence);
    expect(query.description).toContain(sentence);
  });
});
