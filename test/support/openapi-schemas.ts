// Validates values against any schema inside the served OpenAPI document, addressed by JSON
// pointer (JSON Schema 2020-12, OpenAPI 3.1's dialect): examples, webhook bodies and headers.
import { createHmac } from "node:crypto";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsPlugin from "ajv-formats";

const addFormats = ((addFormatsPlugin as unknown as { default?: unknown }).default ??
  addFormatsPlugin) as typeof addFormatsPlugin;

type Json = Record<string, unknown>;

function pointerEscape(segment: string): string {
  return segment.replaceAll("~", "~0").replaceAll("/", "~1");
}

export interface SchemaChecker {
  /** Throws with ajv's errors unless `value` validates against the schema at `pointer`. */
  check(pointer: string[], value: unknown): void;
  /** True when `value` validates against the schema at `pointer`. */
  valid(pointer: string[], value: unknown): boolean;
}

export function schemaChecker(document: Json): SchemaChecker {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema(document, "openapi.json");
  const compile = (pointer: string[]) => {
    const ref = `openapi.json#/${pointer.map(pointerEscape).join("/")}`;
    return ajv.getSchema(ref) ?? ajv.compile({ $ref: ref });
  };
  return {
    check(pointer, value) {
      const validate = compile(pointer);
      if (!validate(value)) {
        throw new Error(
          `${pointer.join("/")} does not match: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(value).slice(0, 400)}`,
        );
      }
    },
    valid: (pointer, value) => compile(pointer)(value) as boolean,
  };
}

/** Spec 4's signature, computed here independently of the service's signing code. */
export function expectedSignature(secret: string, timestamp: string, body: string): string {
  return `v1=${createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex")}`;
}
