// The shapes of portal API answers. Type-only imports from the server's feature modules keep
// the UI in step with them; the bundler erases them, so no server code reaches the browser.
import type { Attention } from "../src/accounts/attention.ts";
import type { BillingContact } from "../src/accounts/billing-contact.ts";
import type { AccessDescription } from "../src/accounts/entitlement.ts";
import type { OwnConnectionView } from "../src/banking/account-connections.ts";
import type { OperatorConnectionView } from "../src/banking/operator-connections.ts";
import type { SimulationResult } from "../src/banking/sandbox/simulate.ts";
import type { SyncResult } from "../src/banking/sync.ts";
import type { ApiKeyView, CreatedApiKey } from "../src/keys/api-keys.ts";
import type { MailView } from "../src/mail/outbox.ts";
import type { OneOffSendView } from "../src/webhooks/delivery/one-off-send.ts";
import type { PendingVerification } from "../src/webhooks/delivery/verification.ts";
import type { DeliveryView } from "../src/webhooks/delivery-log/log.ts";
import type { RecoveryPreview, RecoveryView } from "../src/webhooks/delivery-log/recovery.ts";
import type { EndpointView } from "../src/webhooks/endpoints/records.ts";
import type { EndpointWithSecret } from "../src/webhooks/endpoints/registration.ts";

export type {
  AccessDescription,
  ApiKeyView,
  Attention,
  BillingContact,
  CreatedApiKey,
  DeliveryView,
  EndpointView,
  EndpointWithSecret,
  MailView,
  OneOffSendView,
  OperatorConnectionView,
  OwnConnectionView,
  PendingVerification,
  RecoveryPreview,
  RecoveryView,
  SimulationResult,
  SyncResult,
};

export interface Overview {
  account: {
    id: string;
    name: string;
    status: "sandbox" | "active" | "lapsed";
    subscriptionStatus: string;
    paymentFailed: boolean;
    disabled: boolean;
    demo: boolean;
    connectEnabled: boolean;
  };
  access: AccessDescription;
  baseUrl: string;
  apiBaseUrl: string;
  deliverySourceIp: string | null;
  setup: {
    activeKeys: number;
    endpoints: number;
    verifiedEndpoints: number;
    receivingEndpoints: number;
    disabledEndpoints: number;
    connections: number;
  };
  attention: Attention;
  billing: BillingContact;
}

export interface EndpointDetail {
  endpoint: EndpointView;
  verification: PendingVerification | null;
}

export interface EndpointList {
  data: EndpointView[];
  limits: { maxEndpoints: number; verificationAttempts: number };
}
