// Type-level tests: each `@ts-expect-error` line must fail to compile (tsc reports an unused
// directive otherwise), so wrong paths, parameters and fields are proven to be caught. Checked by
// the project's `tsc --noEmit` and, with the client's own TypeScript 5, by client.test.ts.
import { type Account, createSvcClient, type Transaction } from "../src/index.ts";

export async function typeChecks(): Promise<void> {
  const svc = createSvcClient({ baseUrl: "http://localhost:8080", apiKey: "svk_x" });
  const id = "3f1c2a4e-8d9b-4c7e-9a51-0b6d2e7f4a10";

  // Right: known paths, parameters of the right types, fields that exist.
  const accounts = await svc.GET("/accounts", { params: { query: { limit: 10 } } });
  const first: Account | undefined = accounts.data?.data[0];
  const name: string | undefined = first?.name;
  const page = await svc.GET("/accounts/{account_id}/transactions", {
    params: {
      path: { account_id: id },
      query: { from: "2026-01-01", include_pending: true },
      header: { "If-None-Match": '"tag"' },
    },
  });
  const amount: string | undefined = page.data?.data[0]?.amount;
  const rows: Transaction[] | undefined = page.data?.data;
  const code: string | undefined = page.error?.error.code;
  void [name, amount, rows, code];

  // @ts-expect-error: no such path
  await svc.GET("/account");
  // @ts-expect-error: the read API has no POST
  await svc.POST("/accounts", {});
  // @ts-expect-error: the path parameter is required
  await svc.GET("/accounts/{account_id}", { params: {} });
  await svc.GET("/accounts/{account_id}", {
    // @ts-expect-error: misspelled path parameter
    params: { path: { accountId: id } },
  });
  await svc.GET("/accounts", {
    // @ts-expect-error: limit is a number
    params: { query: { limit: "10" } },
  });
  await svc.GET("/accounts/{account_id}/transactions", {
    // @ts-expect-error: include_pending is a boolean
    params: { path: { account_id: id }, query: { include_pending: "yes" } },
  });
  await svc.GET("/accounts", {
    // @ts-expect-error: unknown query parameter
    params: { query: { include_pendng: true } },
  });
  const balance = await svc.GET("/accounts/{account_id}/balance", {
    params: { path: { account_id: id } },
  });
  // @ts-expect-error: a balance has no `amount` (it has `current` and `available`)
  void balance.data?.amount;
  // @ts-expect-error: a field is a string, not a number
  const wrong: number | undefined = balance.data?.current;
  // @ts-expect-error: an error code is one of the documented ones
  const impossible: "teapot" | undefined = balance.error?.error.code;
  void [wrong, impossible];
}
