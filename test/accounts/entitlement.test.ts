import { describe, expect, test } from "bun:test";
import {
  type AccessFacts,
  decideApiAccess,
  describeApiAccess,
  isEntitled,
} from "../../src/accounts/entitlement.ts";
import { accountStatuses, subscriptionStatuses } from "../../src/db/schema.ts";

const base: AccessFacts = {
  status: "lapsed",
  subscriptionStatus: "none",
  paymentFailed: false,
  disabled: false,
  demo: false,
  connectEnabled: true,
};

describe("entitlement (spec 3)", () => {
  test("status sandbox is entitled whatever the subscription", () => {
    for (const subscriptionStatus of subscriptionStatuses) {
      expect(isEntitled({ status: "sandbox", subscriptionStatus })).toBe(true);
    }
  });

  test("status active is entitled whatever the subscription", () => {
    for (const subscriptionStatus of subscriptionStatuses) {
      expect(isEntitled({ status: "active", subscriptionStatus })).toBe(true);
    }
  });

  test("subscription active or trialing is entitled whatever the status", () => {
    for (const status of accountStatuses) {
      expect(isEntitled({ status, subscriptionStatus: "active" })).toBe(true);
      expect(isEntitled({ status, subscriptionStatus: "trialing" })).toBe(true);
    }
  });

  test("anything else is 403 subscription_lapsed", () => {
    for (const subscriptionStatus of ["past_due", "canceled", "none"] as const) {
      const decision = decideApiAccess({ ...base, subscriptionStatus });
      expect(decision).toMatchObject({ allowed: false, code: "subscription_lapsed" });
    }
  });

  test("a failed renewal payment is named in the message, which asks for updated payment details", () => {
    const decision = decideApiAccess({
      ...base,
      subscriptionStatus: "past_due",
      paymentFailed: true,
    });
    if (decision.allowed) throw new Error("expected a refusal");
    expect(decision.code).toBe("subscription_lapsed");
    expect(decision.message).toContain("renewal payment");
    expect(decision.message).toContain("failed");
    expect(decision.message).toContain("payment details");
  });

  test("a plain lapse does not claim a payment failed", () => {
    const decision = decideApiAccess({ ...base, subscriptionStatus: "canceled" });
    if (decision.allowed) throw new Error("expected a refusal");
    expect(decision.message).not.toContain("payment failed");
    expect(decision.message).toContain("canceled");
  });

  test("a failed payment on an entitled account does not refuse access", () => {
    expect(decideApiAccess({ ...base, status: "active", paymentFailed: true }).allowed).toBe(true);
  });
});

describe("refusal order (the API guide's, under Errors)", () => {
  const everythingWrong: AccessFacts = {
    ...base,
    disabled: true,
    demo: true,
    connectEnabled: false,
  };

  test("disabled wins over everything: 401 user_inactive", () => {
    expect(decideApiAccess(everythingWrong)).toMatchObject({ code: "user_inactive" });
  });

  test("then demo: 403 demo_account", () => {
    expect(decideApiAccess({ ...everythingWrong, disabled: false })).toMatchObject({
      code: "demo_account",
    });
  });

  test("then connect off: 403 connect_not_available", () => {
    expect(decideApiAccess({ ...everythingWrong, disabled: false, demo: false })).toMatchObject({
      code: "connect_not_available",
    });
  });

  test("then not entitled: 403 subscription_lapsed", () => {
    expect(
      decideApiAccess({ ...everythingWrong, disabled: false, demo: false, connectEnabled: true }),
    ).toMatchObject({ code: "subscription_lapsed" });
  });

  test("demo and connect-off refuse even an entitled account", () => {
    expect(decideApiAccess({ ...base, status: "active", demo: true })).toMatchObject({
      code: "demo_account",
    });
    expect(decideApiAccess({ ...base, status: "active", connectEnabled: false })).toMatchObject({
      code: "connect_not_available",
    });
  });
});

describe("describeApiAccess (the portal overview)", () => {
  test("says that calls are served and why", () => {
    const described = describeApiAccess({ ...base, subscriptionStatus: "trialing" });
    expect(described).toMatchObject({ allowed: true, httpStatus: 200 });
    expect(described.reason).toContain("subscription is trialing");
    expect(describeApiAccess({ ...base, status: "sandbox" }).reason).toContain("status is sandbox");
  });

  test("says which status and code a call gets, and the message the API sends", () => {
    const facts = { ...base, subscriptionStatus: "past_due" as const, paymentFailed: true };
    const described = describeApiAccess(facts);
    const decision = decideApiAccess(facts);
    expect(described).toMatchObject({
      allowed: false,
      httpStatus: 403,
      code: "subscription_lapsed",
    });
    expect(described.summary).toContain("403 subscription_lapsed");
    if (decision.allowed) throw new Error("expected a refusal");
    expect(described.reason).toBe(decision.message);
    expect(describeApiAccess({ ...base, disabled: true }).httpStatus).toBe(401);
  });
});
