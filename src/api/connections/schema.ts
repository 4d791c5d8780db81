// A connection as /v1 serves it (spec 2), and a page of them.
import { z } from "@hono/zod-openapi";
import { connectionStatuses } from "../../db/schema.ts";
import { idSchema, nextCursorSchema, timestampSchema } from "../shared/schema.ts";

export const connectionSchema = z
  .strictObject({
    connection_id: idSchema,
    status: z.enum(connectionStatuses).openapi({ example: "linked" }),
    account_ids: z
      .array(idSchema)
      .openapi({ description: "Every account the connection carries." }),
    institution: z.string().openapi({ example: "Sandbox Bank" }),
    created_at: timestampSchema,
    last_synced_at: timestampSchema
      .nullable()
      .openapi({ description: "When the last successful sync finished." }),
    error: z
      .string()
      .nullable()
      .openapi({ description: "Why the connection is in `error`, when it is.", example: null }),
    notice: z.string().nullable().openapi({
      description:
        "The bank's latest message to the user (for example that they must sign in at the bank again) and what the last sync left out of the bank's answer (for example \"1 account without an identifier was skipped\"); null when there is nothing to say. Shown even while the connection is `linked`; never a secret or URL path.",
      example: "1 account without an identifier was skipped",
    }),
    consent_expires_at: timestampSchema.nullable().openapi({
      description:
        "When the bank consent behind the connection ends (UTC); null when the connection has no consent that ends (sandbox, operator ingest, SimpleFIN). The owner is e-mailed 7 days and 1 day before; after it the connection moves to `expired` until it is renewed.",
    }),
  })
  .openapi("Connection");

export const connectionListSchema = z
  .strictObject({ data: z.array(connectionSchema), next_cursor: nextCursorSchema })
  .openapi("ConnectionList");
