import { Hono } from "hono";
import { z } from "zod";
import { listOwnConnections, requireOwnConnection } from "../../banking/account-connections.ts";
import { assertConnectionRoom } from "../../banking/link-limits.ts";
import { connectSandbox, maxSandboxSeed } from "../../banking/sandbox/connect.ts";
import { simulateActivity, simulationKinds } from "../../banking/sandbox/simulate.ts";
import { syncConnection } from "../../banking/sync.ts";
import { connectionStatuses } from "../../db/schema.ts";
import { readJson } from "../../http/validate.ts";
import type { PortalDeps } from "../deps.ts";
import { ownAccountId } from "../owner.ts";

const connectBody = z
  .object({ seed: z.number().int().min(0).max(maxSandboxSeed).optional() })
  .strict();

const simulateBody = z
  .object({
    kind: z.enum(simulationKinds),
    accountId: z.string().optional(),
    status: z.enum(connectionStatuses).optional(),
  })
  .strict();

/** The signed-in account's bank connections: connect the sandbox bank, list, "Sync now". */
export function connectionRoutes(services: PortalDeps): Hono {
  const { db } = services;
  const app = new Hono();

  app.get("/", async (c) => c.json({ data: await listOwnConnections(db, ownAccountId(c)) }));

  app.post("/sandbox", async (c) => {
    const { seed } = await readJson(c, connectBody);
    await assertConnectionRoom(db, ownAccountId(c));
    const connection = await connectSandbox(services, {
      serviceAccountId: ownAccountId(c),
      ...(seed !== undefined ? { seed } : {}),
    });
    return c.json({ id: connection.id, status: connection.status }, 201);
  });

  // The provider's minimum interval applies (no force): the answer then says when a sync is
  // next allowed; a failed read is reported in the answer and on the connection.
  app.post("/:id/sync", async (c) => {
    const connection = await requireOwnConnection(db, ownAccountId(c), c.req.param("id"));
    return c.json(await syncConnection(services, connection.id, { trigger: "portal" }));
  });

  // Simulate activity (sandbox connections only): the bank does something now and a sync
  // brings it in, so the owner can make each account event happen on demand.
  app.post("/:id/simulate", async (c) => {
    const connection = await requireOwnConnection(db, ownAccountId(c), c.req.param("id"));
    const { kind, accountId, status } = await readJson(c, simulateBody);
    return c.json(
      await simulateActivity(services, {
        connectionId: connection.id,
        kind,
        trigger: "portal",
        ...(accountId !== undefined ? { accountId } : {}),
        ...(status !== undefined ? { status } : {}),
      }),
    );
  });

  return app;
}
