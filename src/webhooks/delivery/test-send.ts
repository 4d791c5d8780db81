// Spec 3 "portal: Test": a webhook.test event, sent once, to any endpoint (unverified
// included); the portal shows the receiver's status code and response time.

import { consumeSend } from "../endpoints/limits.ts";
import { type EndpointRef, findEndpoint } from "../endpoints/records.ts";
import { buildEvent } from "../events/write.ts";
import type { WebhookContext } from "./context.ts";
import { type OneOffSendView, sendOnce } from "./one-off-send.ts";

export async function testEndpoint(ctx: WebhookContext, ref: EndpointRef): Promise<OneOffSendView> {
  const endpoint = await findEndpoint(ctx.db, ref);
  await consumeSend(ctx.db, ctx.clock, endpoint.serviceAccountId);
  const built = buildEvent("webhook.test", { endpoint_id: endpoint.id }, ctx.clock.now());
  return sendOnce(ctx, endpoint, built, built.body);
}
