// GET /v1/connections and /v1/connections/{connection_id}.
import { createRoute } from "@hono/zod-openapi";
import { readRoute } from "../middleware/read-route.ts";
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

/** The connections' reads, answered by the router and by the read lane (middleware/read-route.ts). */
export function connectionReadRoutes(reads: ConnectionReads) {
  return [
    readRoute(listRoute, async ({ principal, query }) => {
      const page = await reads.listConnections(
        principal.serviceAccountId,
        idPageRequest("connections", query),
      );
      return { body: JSON.stringify(idPageBody("connections", page, (row) => row.connection_id)) };
    }),
    readRoute(getRoute, async ({ principal, param }) => ({
      body: JSON.stringify(
        await reads.getConnection(principal.serviceAccountId, param.connection_id),
      ),
    })),
  ];
}
