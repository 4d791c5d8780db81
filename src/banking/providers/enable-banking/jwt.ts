// The JWT every Enable Banking call carries: RS256 signed with the
// application's private key through WebCrypto; header kid = application id; claims iss
// "enablebanking.com", aud "api.enablebanking.com", iat and a short exp.
import { createPrivateKey } from "node:crypto";
import { readFileSync } from "node:fs";
import { ProviderError } from "../errors.ts";

/** A token lives this long; a fresh one is made well before it runs out. */
const jwtLifetimeSeconds = 300;

export interface EnableBankingSigner {
  /** A bearer token valid from `nowMs` for jwtLifetimeSeconds. */
  token(nowMs: number): Promise<string>;
}

const rs256 = { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" } as const;

function base64UrlJson(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString("base64url");
}

/** Imports a PEM RSA private key (PKCS#1 or PKCS#8) as a WebCrypto signing key. */
export async function importRsaPrivateKey(pem: string, origin: string): Promise<CryptoKey> {
  let der: Buffer;
  try {
    const key = createPrivateKey(pem);
    if (key.asymmetricKeyType !== "rsa") throw new Error("not an RSA key");
    der = key.export({ format: "der", type: "pkcs8" });
  } catch (error) {
    throw new ProviderError(
      "bad_config",
      `${origin}: not a usable RSA private key in PEM form (${(error as Error).message})`,
    );
  }
  return crypto.subtle.importKey("pkcs8", new Uint8Array(der), rs256, false, ["sign"]);
}

export function createEnableBankingSigner(
  applicationId: string,
  key: CryptoKey,
): EnableBankingSigner {
  return {
    async token(nowMs) {
      const iat = Math.floor(nowMs / 1000);
      const header = base64UrlJson({ typ: "JWT", alg: "RS256", kid: applicationId });
      const claims = base64UrlJson({
        iss: "enablebanking.com",
        aud: "api.enablebanking.com",
        iat,
        exp: iat + jwtLifetimeSeconds,
      });
      const input = `${header}.${claims}`;
      const signature = await crypto.subtle.sign(rs256, key, new TextEncoder().encode(input));
      return `${input}.${Buffer.from(signature).toString("base64url")}`;
    },
  };
}

/** The signer from the operator's settings (enableBankingApplicationId, enableBankingKeyFile). */
export async function signerFromKeyFile(
  applicationId: string,
  keyFile: string,
): Promise<EnableBankingSigner> {
  let pem: string;
  try {
    pem = readFileSync(keyFile, "utf8");
  } catch (error) {
    throw new ProviderError(
      "bad_config",
      `enableBankingKeyFile ${keyFile}: cannot be read (${(error as NodeJS.ErrnoException).code})`,
    );
  }
  return createEnableBankingSigner(
    applicationId,
    await importRsaPrivateKey(pem, `enableBankingKeyFile ${keyFile}`),
  );
}

/** A signer that reads and imports the key on first use (provider registries are built sync). */
export function lazySigner(applicationId: string, keyFile: string): EnableBankingSigner {
  let signer: Promise<EnableBankingSigner> | undefined;
  return {
    async token(nowMs) {
      signer ??= signerFromKeyFile(applicationId, keyFile);
      return (await signer).token(nowMs);
    },
  };
}
