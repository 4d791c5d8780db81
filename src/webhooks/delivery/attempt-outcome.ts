// What a send attempt produced for a claimed delivery, and the endpoint state an outcome batch
// reads: shared by both engines' outcome statements (outcomes.ts, outcomes-postgres.ts).
import type { ClaimedDelivery } from "./claimed-delivery.ts";
import type { SendResult } from "./sender.ts";

export interface AttemptOutcome {
  delivery: ClaimedDelivery;
  result: SendResult;
}

export interface EndpointState {
  id: string;
  status: string;
  failureCount: number;
  serviceAccountId: string;
  url: string;
}
