// The secret box for provider secrets (Enable Banking session ids, SimpleFIN access URLs):
// one purpose label, so these keys open nothing else sealed under the master key.
import { createSecretBox, type SecretBox } from "../../crypto/secret-box.ts";

const providerSecretPurpose = "provider-secrets/v1";

export function providerSecretBox(masterKey: Uint8Array): SecretBox {
  return createSecretBox(masterKey, providerSecretPurpose);
}
