// The examples of the connections' operations (shared/examples.ts), declared on their routes.
import type { z } from "@hono/zod-openapi";
import {
  type DeclaredExamples,
  errorExample,
  exampleIds,
  idPageErrorExamples,
  refusal,
} from "../shared/examples.ts";
import { connectionPathParams } from "../shared/params.ts";
import { connectionNotFound } from "./read.ts";
import type { connectionListSchema, connectionSchema } from "./schema.ts";

const connection = {
  connection_id: exampleIds.connection,
  status: "linked",
  account_ids: [exampleIds.account, exampleIds.savingsAccount],
  institution: "Sandbox Bank",
  created_at: "2026-01-02T08:30:00.000Z",
  last_synced_at: "2026-01-15T09:00:00.000Z",
  error: null,
  notice: null,
  consent_expires_at: "2026-04-02T08:30:00.000Z",
} satisfies z.infer<typeof connectionSchema>;

export const listConnectionsExamples: DeclaredExamples = () => ({
  ok: {
    summary: "The last page of connections",
    value: { data: [connection], next_cursor: null } satisfies z.infer<typeof connectionListSchema>,
  },
  errors: idPageErrorExamples(),
});

export const getConnectionExamples: DeclaredExamples = () => ({
  ok: { summary: "A connection", value: connection },
  errors: {
    "400": {
      bad_id: errorExample(
        "An id that is not a UUID",
        refusal(connectionPathParams, { connection_id: "con_123" }, "param"),
      ),
    },
    "404": {
      not_found: errorExample(
        "No such connection in the key's service account",
        connectionNotFound(exampleIds.connection),
      ),
    },
  },
});
