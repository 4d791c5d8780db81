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

/** Connections in id order, after `afterId` (keyset), at most `limit`. */
export function listConnections(
  database: Database,
  serviceAccountId: string,
  page: { limit: number; afterId?: string },
): Page<ConnectionView> {
  const rows = database.sqlite
    .query<ConnectionRow, [string, string, number]>(
      `${connectionSelect} WHERE c.service_account_id = ?1 AND c.id > ?2 ORDER BY c.id LIMIT ?3`,
    )
    .all(serviceAccountId, page.afterId ?? "", page.limit + 1);
  const result = toPage(rows, page.limit);
  return { data: result.data.map(toView), hasMore: result.hasMore };
}

export function getConnection(
  database: Database,
  serviceAccountId: string,
  connectionId: string,
): ConnectionView {
  const row = database.sqlite
    .query<ConnectionRow, [string, string]>(
      `${connectionSelect} WHERE c.id = ?1 AND c.service_account_id = ?2`,
    )
    .get(connectionId, serviceAccountId);
  if (!row) throw new ApiError("not_found", `No connection ${connectionId}.`);
  return toView(row);
}
