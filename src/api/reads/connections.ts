// Reads of connections for one service account (spec 2 "Connection"): status in the spec's
// vocabulary and every account the connection carries.
import type { Database } from "../../db/open.ts";
import type { ConnectionStatus } from "../../db/schema.ts";
import { ApiError } from "../../http/errors.ts";
import { type Page, toPage } from "./page.ts";

export interface ConnectionView {
  connection_id: string;
  status: ConnectionStatus;
  account_ids: string[];
  institution: string;
  created_at: string;
  last_synced_at: string | null;
  error: string | null;
}

interface ConnectionRow {
  connection_id: string;
  status: ConnectionStatus;
  account_ids: string;
  institution: string;
  created_at: number;
  last_synced_at: number | null;
  error: string | null;
}

export interface ConnectionReads {
  /** Connections in id order, after `afterId` (keyset), at most `limit`. */
  listConnections(
    serviceAccountId: string,
    page: { limit: number; afterId?: string },
  ): Page<ConnectionView>;
  getConnection(serviceAccountId: string, connectionId: string): ConnectionView;
}

const connectionSelect = `SELECT c.id AS connection_id, c.status, c.institution, c.created_at,
       c.last_synced_at, c.error,
       (SELECT json_group_array(b.id) FROM
          (SELECT id FROM bank_accounts WHERE connection_id = c.id ORDER BY id) AS b) AS account_ids
  FROM connections c`;

function toView(row: ConnectionRow): ConnectionView {
  return {
    connection_id: row.connection_id,
    status: row.status,
    account_ids: JSON.parse(row.account_ids) as string[],
    institution: row.institution,
    created_at: new Date(row.created_at).toISOString(),
    last_synced_at: row.last_synced_at === null ? null : new Date(row.last_synced_at).toISOString(),
    error: row.error,
  };
}

export function createConnectionReads(database: Database): ConnectionReads {
  const list = database.sqlite.prepare<ConnectionRow, [string, string, number]>(
    `${connectionSelect} WHERE c.service_account_id = ?1 AND c.id > ?2 ORDER BY c.id LIMIT ?3`,
  );
  const one = database.sqlite.prepare<ConnectionRow, [string, string]>(
    `${connectionSelect} WHERE c.id = ?1 AND c.service_account_id = ?2`,
  );
  return {
    listConnections(serviceAccountId, page) {
      const result = toPage(
        list.all(serviceAccountId, page.afterId ?? "", page.limit + 1),
        page.limit,
      );
      return { data: result.data.map(toView), hasMore: result.hasMore };
    },
    getConnection(serviceAccountId, connectionId) {
      const row = one.get(connectionId, serviceAccountId);
      if (!row) throw new ApiError("not_found", `No connection ${connectionId}.`);
      return toView(row);
    },
  };
}
