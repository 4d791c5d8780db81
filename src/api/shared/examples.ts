// The examples the reference shows on a /v1 operation: each route declares its own beside its
// definition (`[operationExamples]: ...` in createRoute, usually from its resource's examples.ts)
// and the reference collects them from the document it generates (reference/examples.ts), so no
// list of operations is kept anywhere else. Error examples are produced by the code that answers
// them (the same message functions and validators), never retyped, so the reference shows what
// the server really says (test/api/openapi-reference.test.ts compares them with real answers).
import type { z } from "@hono/zod-openapi";
import { ApiError } from "../../core/errors.ts";
import type { EventType } from "../../db/schema.ts";
import { invalidCursor } from "./cursor.ts";
import { accountPathParams, pageQuery, validationHook } from "./params.ts";

/** The ids the examples share, so an account's connection is the connection shown, and so on. */
export const exampleIds = {
  account: "3f1c2a4e-8d9b-4c7e-9a51-0b6d2e7f4a10",
  savingsAccount: "6a0d3b9c-2e4f-4a1b-8c7d-5e6f7a8b9c0d",
  connection: "8e2d6b1a-5c4f-4a3e-b9d7-2f1e0c9a8b76",
  bookedTransaction: "1b2c3d4e-5f60-4a7b-8c9d-0e1f2a3b4c5d",
  pendingTransaction: "9d8c7b6a-5f4e-4d3c-a2b1-0f9e8d7c6b5a",
  replacedPending: "2c3d4e5f-6071-4b8c-9dae-1f2a3b4c5d6e",
} as const;

export interface NamedExample {
  summary: string;
  value: unknown;
}

/** Named examples of one status: `{ bad_limit: {...}, bad_cursor: {...} }`. */
export type StatusExamples = Record<string, NamedExample>;

export interface OperationExamples {
  /** The 200 body. */
  ok?: NamedExample;
  /**
   * Errors by status ("400", "404"). Those every authenticated operation can answer (401, 403,
   * 429, 500) are the reference's own.
   */
  errors?: Record<string, StatusExamples>;
}

/** What the reference gives every declaration: this instance's settings, the example events. */
export interface ExampleContext {
  retentionDays: number;
  /** The envelope of `type`'s example event, the one the webhooks section shows signed. */
  exampleEvent(type: EventType): Record<string, unknown>;
}

/** An operation's examples, built when the document is (on its first use), not at start. */
export type DeclaredExamples = (context: ExampleContext) => OperationExamples;

/**
 * The key a route carries its examples under. A symbol, so the examples travel with the route
 * into the generated operation (object spread copies it) but never into the document's JSON.
 */
export const operationExamples: unique symbol = Symbol("operation examples");

/** The examples declared on the route `operation` was generated from, taken off the operation. */
export function takeOperationExamples(operation: object): DeclaredExamples | undefined {
  const carrier = operation as { [operationExamples]?: DeclaredExamples };
  const declared = carrier[operationExamples];
  delete carrier[operationExamples];
  return declared;
}

export function errorExample(summary: string, error: ApiError): NamedExample {
  return { summary, value: error.toBody() };
}

/** The ApiError the real validator raises for `input` (400 invalid_request naming the parameter). */
export function refusal(
  schema: z.ZodType,
  input: Record<string, string>,
  target: "query" | "param" = "query",
): ApiError {
  const result = schema.safeParse(input);
  try {
    validationHook({ target, success: result.success, error: result.error }, {} as never);
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error(`the example ${target} ${JSON.stringify(input)} is valid`);
}

/** The ApiError `work` throws. */
export function thrown(work: () => unknown): ApiError {
  try {
    work();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error("the example did not fail");
}

/** A path's `account_id` that is not a UUID. */
export function badAccountIdExamples(): StatusExamples {
  return {
    bad_id: errorExample(
      "An id that is not a UUID",
      refusal(accountPathParams, { account_id: "acc_123" }, "param"),
    ),
  };
}

/** A `limit` out of range. */
export function badLimitExamples(): StatusExamples {
  return { bad_limit: errorExample("`limit` out of range", refusal(pageQuery, { limit: "0" })) };
}

/** A parameter a page query (`limit`, `cursor`) does not take. */
export function unknownPageParameterExamples(): StatusExamples {
  return {
    unknown_parameter: errorExample(
      "A parameter the route does not take",
      refusal(pageQuery, { page: "2" }),
    ),
  };
}

/** A cursor this API did not issue. */
export function badCursorExample(summary: string): NamedExample {
  return errorExample(summary, invalidCursor("not a cursor of this API"));
}

/** The 400s of an id-ordered list (shared/pagination.ts). */
export function idPageErrorExamples(): Record<string, StatusExamples> {
  return {
    "400": {
      ...badLimitExamples(),
      ...unknownPageParameterExamples(),
      bad_cursor: badCursorExample("A cursor that was not a next_cursor"),
    },
  };
}
