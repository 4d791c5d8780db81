// Checks real responses against the served OpenAPI document: the status must be documented for
// that operation and the body must validate against the documented schema (JSON Schema 2020-12).
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsPlugin from "ajv-formats";

// ajv-formats is CommonJS with a default export; under Bun the namespace import can be either.
const addFormats = ((addFormatsPlugin as unknown as { default?: unknown }).default ??
  addFormatsPlugin) as typeof addFormatsPlugin;

type Json = Record<string, unknown>;

export interface DocumentChecker {
  /** Throws with the validation errors when the response does not match the document. */
  check(method: string, pathTemplate: string, status: number, body: unknown): void;
  operations(): { method: string; path: string }[];
}

function pointerEscape(segment: string): string {
  return segment.replaceAll("~", "~0").replaceAll("/", "~1");
}

export function documentChecker(document: Json): DocumentChecker {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema(document, "openapi.json");
  const paths = document.paths as Record<string, Record<string, Json>>;
  return {
    operations() {
      return Object.entries(paths).flatMap(([path, item]) =>
        Object.keys(item).map((method) => ({ method, path })),
      );
    },
    check(method, pathTemplate, status, body) {
      const operation = paths[pathTemplate]?.[method.toLowerCase()];
      if (!operation) throw new Error(`${method} ${pathTemplate} is not in the document`);
      const responses = operation.responses as Record<string, Json>;
      if (!responses[String(status)]) {
        throw new Error(`${method} ${pathTemplate} answered ${status}, which is not documented`);
      }
      const ref = `openapi.json#/paths/${pointerEscape(pathTemplate)}/${method.toLowerCase()}/responses/${status}/content/application~1json/schema`;
      const validate = ajv.getSchema(ref) ?? ajv.compile({ $ref: ref });
      if (!validate(body)) {
        throw new Error(
          `${method} ${pathTemplate} ${status} does not match the document: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 500)}`,
        );
      }
    },
  };
}
