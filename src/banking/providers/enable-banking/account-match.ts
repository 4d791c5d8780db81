// Renewing an Enable Banking consent makes a new session, and a new session gives every account
// a new `uid` (Enable Banking's OpenAPI, AccountResource.uid). The accounts Svc already stores
// keep their account_id: each new account is matched to a stored one by the provider's own
// identifiers, most reliable first (docs/providers.md "Consent and Renew"):
//   1. `identification_hash` (documented for matching accounts between sessions),
//   2. the IBAN (`account_id.iban`, spaces removed),
//   3. another account identification (`account_id.masked_pan`) with the same currency.
// A match must be unique on both sides; an account matched by none is a new account.
import type { EbAccount } from "./transform.ts";

export interface StoredEbAccount {
  /** Svc's account id. */
  id: string;
  /** The uid it is read under now. */
  externalId: string;
}

export interface AccountRemap {
  accountId: string;
  fromExternalId: string;
  toExternalId: string;
}

const ibanOf = (account: EbAccount) =>
  account.account_id?.iban?.replace(/\s+/g, "").toUpperCase() || undefined;

const identifiers: ((account: EbAccount) => string | undefined)[] = [
  (a) => a.identification_hash ?? undefined,
  ibanOf,
  (a) => (a.account_id?.masked_pan ? `${a.account_id.masked_pan}|${a.currency}` : undefined),
];

type EbAccountWithUid = EbAccount & { uid: string };
const hasUid = (account: EbAccount): account is EbAccountWithUid => Boolean(account.uid);

/** Which stored account each account of the new session is (by previous session's records). */
export function matchRenewedAccounts(
  previous: EbAccount[],
  stored: StoredEbAccount[],
  freshAccounts: EbAccount[],
): AccountRemap[] {
  const storedByUid = new Map(stored.map((s) => [s.externalId, s]));
  // An account without a uid is skipped by the sync (transform.ts), so it is never stored.
  const candidates = previous.filter(hasUid).filter((p) => storedByUid.has(p.uid));
  const fresh = freshAccounts.filter(hasUid);
  const takenOld = new Set<string>();
  const takenNew = new Set<string>();
  const remaps: AccountRemap[] = [];
  for (const identify of identifiers) {
    for (const account of fresh) {
      if (takenNew.has(account.uid)) continue;
      const key = identify(account);
      if (!key) continue;
      const sameKeyNew = fresh.filter((f) => !takenNew.has(f.uid) && identify(f) === key);
      const sameKeyOld = candidates.filter((p) => !takenOld.has(p.uid) && identify(p) === key);
      const old = sameKeyOld[0];
      if (sameKeyNew.length !== 1 || sameKeyOld.length !== 1 || !old) continue;
      const target = storedByUid.get(old.uid);
      if (!target) continue;
      takenOld.add(old.uid);
      takenNew.add(account.uid);
      remaps.push({ accountId: target.id, fromExternalId: old.uid, toExternalId: account.uid });
    }
  }
  return remaps;
}
