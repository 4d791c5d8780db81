// Reads of connections for one service account (spec 2 "Connection"): status in the spec's
// vocabulary and every account the connection carries.
import { and, asc, eq, gt, inArray, sql } from "drizzle-orm";
import { ApiError } from "../../core/errors.ts";
import type { ConnectionStatus, Row } from "../../db/schema.ts";
import type { Db } from "../../db/store.ts";
import { type Page, toPage } from "../shared/page.ts";

export interface ConnectionView {
  connection_id: string;
  status: ConnectionStatus;
  account_ids: string[];
  institution: string;
  created_at: string;
  last_synced_at: string | null;
  error: string | null;
  notice: string | null;
  consent_expires_at: string | null;
}

export interface ConnectionReads {
  /** Connections in id order, after `afterId` (keyset), at most `limit`. */
  listConnections(
    serviceAccountId: string,
    page: { limit: number; afterId?: string },
  ): Promise<Page<ConnectionView>>;
  getConnection(serviceAccountId: string, connectionId: string): Promise<ConnectionView>;
}

const p = (name: string) => sql.placeholder(name);

export function connectionNotFound(connectionId: string): ApiError {
  return new ApiError("not_found", `No connection ${connectionId}.`);
}

export function createConnectionReads(db: Db): ConnectionReads {
  const { connections, bankAccounts } = db.t;
  const columns = {
    id: connections.id,
    status: connections.status,
    institution: connections.institution,
    createdAt: connections.createdAt,
    lastSyncedAt: connections.lastSyncedAt,
    error: connections.error,
    notice: connections.notice,
    consentExpiresAt: connections.consentExpiresAt,
  };
  type ConnectionRow = Pick<
    Row<"connections">,
    | "id"
    | "status"
    | "institution"
    | "createdAt"
    | "lastSyncedAt"
    | "error"
    | "notice"
    | "consentExpiresAt"
  >;
  const owner = eq(connections.serviceAccountId, p("owner"));
  const list = db
    .select(columns)
    .from(connections)
    .where(and(owner, gt(connections.id, p("after"))))
    .orderBy(asc(connections.id))
    .limit(p("limit"))
    .prepare("svc_connections_list");
  const one = db
    .select(columns)
    .from(connections)
    .where(and(eq(connections.id, p("id")), owner))
    .prepare("svc_connections_one");
  /** Every account each connection carries, in id order. */
  const withAccounts = async (rows: ConnectionRow[]): Promise<ConnectionView[]> => {
    if (rows.length === 0) return [];
    const accounts = await db
      .select({ id: bankAccounts.id, connectionId: bankAccounts.connectionId })
      .from(bankAccounts)
      .where(
        inArray(
          bankAccounts.connectionId,
          rows.map((row) => row.id),
        ),
      )
      .orderBy(asc(bankAccounts.id));
    const byConnection = new Map<string, string[]>();
    for (const account of accounts) {
      const ids = byConnection.get(account.connectionId) ?? [];
      ids.push(account.id);
      byConnection.set(account.connectionId, ids);
    }
    return rows.map((row) => ({
      connection_id: row.id,
      status: row.status,
      account_ids: byConnection.get(row.id) ?? [],
      institution: row.institution,
      created_at: row.createdAt.toISOString(),
      last_synced_at: row.lastSyncedAt?.toISOString() ?? null,
      error: row.error,
      notice: row.notice,
      consent_expires_at: row.consentExpiresAt?.toISOString() ?? null,
    }));
  };
  return {
    async listConnections(serviceAccountId, page) {
      const result = toPage(
        await list.execute({
          owner: serviceAccountId,
          after: page.afterId ?? "",
          limit: page.limit + 1,
        }),
        page.limit,
      );
      return { data: await withAccounts(result.data), hasMore: result.hasMore };
    },
    async getConnection(serviceAccountId, connectionId) {
      const rows = await one.execute({ id: connectionId, owner: serviceAccountId });
      const [view] = await withAccounts(rows);
      if (!view) throw connectionNotFound(connectionId);
      return view;
    },
  };
}
