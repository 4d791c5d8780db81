// The operator ingest route: POST <mount>?account=<service account id> with the same JSON
// document `svc import` reads. Mounted under the portal's operator routes, whose session and
// operator checks run first; this module only validates, calls importBankData and maps the result.
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { z } from "zod";
import { type ImportDeps, importBankData } from "../../banking/import/ingest.ts";
import { ApiError } from "../../core/errors.ts";
import { toJsonNames } from "../../core/json-names.ts";
import { tooLargeError } from "../../http/body-limit.ts";
import { readJson } from "../../http/validate.ts";

export const maxImportBytes = 50 * 1024 * 1024;

const querySchema = z.object({ account: z.uuid() });

export function createImportRoutes(
  services: ImportDeps,
  options: { maxBytes?: number } = {},
): Hono {
  const maxBytes = options.maxBytes ?? maxImportBytes;
  const routes = new Hono();
  routes.post(
    "/",
    bodyLimit({
      maxSize: maxBytes,
      onError: () => {
        throw tooLargeError(maxBytes, "split the import document into several");
      },
    }),
    async (c) => {
      const query = querySchema.safeParse({ account: c.req.query("account") });
      if (!query.success)
        throw new ApiError(
          "invalid_request",
          "account: pass ?account=<service account id> (a UUID).",
        );
      // The document's shape is checked whole by importBankData, which names every problem.
      const document = await readJson(c, z.unknown());
      // The same snake_case summary as `svc import --json` (one naming).
      return c.json(toJsonNames(await importBankData(services, query.data.account, document)));
    },
  );
  return routes;
}
