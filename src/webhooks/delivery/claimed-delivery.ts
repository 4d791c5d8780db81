// A delivery as a claim hands it to the sender, and the row a claim reads before the endpoint's
// state is checked: shared by both engines' claim statements (claims.ts, claims-postgres.ts).
export interface ClaimedDelivery {
  id: string;
  eventId: string;
  endpointId: string;
  serviceAccountId: string;
  /** Attempts made before this one. */
  attemptCount: number;
  body: string;
  url: string;
  secretSalt: string;
  /**
   * The claim's token (fencing): an outcome is recorded, and a lease released, only while the
   * row still carries it, so a dispatcher that stalled past its lease cannot overwrite the
   * attempt of the one that took the row over.
   */
  claimToken: string;
}

/** A claimed row before the endpoint's state is checked (sendableOf). */
export type ClaimedRow = Omit<ClaimedDelivery, "claimToken"> & {
  endpointStatus: string;
  verified: boolean;
};
