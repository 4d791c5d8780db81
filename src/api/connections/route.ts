// GET /v1/connections and /v1/connections/{connection_id}.
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { ApiEnv } from "../middleware/auth.ts";
import { operationExamples } from "../shared/examples.ts";
import { idPageBody, idPageRequest } from "../shared/pagination.ts";
import { connectionPathParams, noQuery, pageQuery } from "../shared/params.ts";
import { conditionalReadHeaders, itemResponses, listResponses } from "../shared/responses.ts";
import { getConnectionExamples, listConnectionsExamples } from "./examples.ts";
import type { ConnectionReads } from "./read.ts";
import { connectionListSchema, connectionSchema } from "./schema.ts";

const listRoute = createRoute({
  method: "get",
  path: "/connections",
  operationId: "listConnections",
  [operationExamples]: listConnectionsExamples,
  tags: ["Connections"],
  summary: "List connections",
  description:
    "Every connection of the key's service account with its status (linked, awaiting_auth, rejected, suspended, expired, error, initiated) and the accounts it carries.",
  request: { headers: conditionalReadHeaders, query: pageQuery },
  responses: listResponses(connectionListSchema, "A page of connections, in id order."),
});

const getRoute = createRoute({
  method: "get",
  path: "/connections/{connection_id}",
  operationId: "getConnection",
  [operationExamples]: getConnectionExamples,
  tags: ["Connections"],
  summary: "Get a connection",
  description:
    "One connection of the key's service account: its institution, status and the accounts it carries. An id of another service account is 404, like an unknown one.",
  request: { headers: conditionalReadHeaders, query: noQuery, params: connectionPathParams },
  responses: itemResponses(connectionSchema, "The connection."),
});

export function registerConnectionRoutes(app: OpenAPIHono<ApiEnv>, reads: ConnectionReads): void {
  app.openapi(listRoute, async (c) => {
    const owner = c.get("principal").serviceAccountId;
    const page = await reads.listConnections(
      owner,
      idPageRequest("connections", c.req.valid("query")),
    );
    return c.json(
      idPageBody("connections", page, (row) => row.connection_id),
      200,
    );
  });
  app.openapi(getRoute, async (c) => {
    const owner = c.get("principal").serviceAccountId;
    return c.json(await reads.getConnection(owner, c.req.valid("param").connection_id), 200);
  });
}
