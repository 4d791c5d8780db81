// Verification codes (spec 2 "Verification code", 3, 8: unambiguous alphabet,
// only a hash stored, a new send replaces the old code).
import { beforeAll, describe, expect, test } from "bun:test";
import { tables } from "../support/tables.ts";

const { deliveries, events, verificationCodes } = tables;

import { ApiError } from "../../src/core/errors.ts";
import { silentLogger } from "../../src/log/log.ts";
import { openServices } from "../../src/server/services.ts";
import { webhookContext } from "../../src/webhooks/delivery/context.ts";
import { testEndpoint } from "../../src/webhooks/delivery/test-send.ts";
import {
  sendVerificationCode,
  verificationCodeAlphabet,
  verifyEndpoint,
} from "../../src/webhooks/delivery/verification.ts";
import { registerEndpoint } from "../../src/webhooks/endpoints/registration.ts";
import type { Receiver } from "../support/receiver.ts";
import { testMasterKeyHex } from "../support/services.ts";
import { lastVerificationCode, raiseBalanceEvent, webhookSuite } from "../support/webhooks.ts";

const suite = webhookSuite();
let receiver: Receiver;
beforeAll(() => {
  receiver = suite.receiver();
});

async function unverified() {
  const s = await suite.setup();
  const { endpoint } = await registerEndpoint(s.ctx, {
    serviceAccountId: s.accountId,
    url: receiver.url("/verify"),
  });
  return { s, ref: { endpointId: endpoint.id } };
}

async function rejection(work: () => unknown): Promise<ApiError> {
  try {
    await work();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error("expected an ApiError");
}

function wrongCode(code: string): string {
  const swap = code[0] === "A" ? "B" : "A";
  return `${swap}${code.slice(1)}`;
}

describe("send verification code", () => {
  test("delivers a webhook.verify with an 8-character code from the unambiguous alphabet and the endpoint id", async () => {
    const { s, ref } = await unverified();
    const result = await sendVerificationCode(s.ctx, ref);
    expect(result).toMatchObject({ ok: true, statusCode: 200, type: "webhook.verify" });
    const event = JSON.parse(receiver.requests.at(-1)?.body ?? "{}");
    expect(event.type).toBe("webhook.verify");
    expect(event.data.endpoint_id).toBe(ref.endpointId);
    expect(event.data.code).toMatch(new RegExp(`^[${verificationCodeAlphabet}]{8}$`));
    expect(verificationCodeAlphabet).not.toMatch(/[01OIL]/);
  });

  test("the code is stored only as a hash, and the stored event body has it masked", async () => {
    const { s, ref } = await unverified();
    await sendVerificationCode(s.ctx, ref);
    const code = lastVerificationCode(receiver);
    const db = s.services.db;
    const everything = JSON.stringify([
      await db.select().from(verificationCodes),
      await db.select().from(events),
      await db.select().from(deliveries),
    ]);
    expect(everything).not.toContain(code);
    expect((await db.select().from(events))[0]?.body).toContain('"code":"********"');
  });

  test("account events are not sent to an unverified endpoint", async () => {
    const { s } = await unverified();
    const recorded = await raiseBalanceEvent(s);
    expect(recorded.deliveryIds).toEqual([]);
  });
});

describe("verify (spec 3: correct code, under 1 hour, fewer than 5 attempts)", () => {
  test("the correct code makes the endpoint verified (case and spaces forgiven); then account events flow", async () => {
    const { s, ref } = await unverified();
    await sendVerificationCode(s.ctx, ref);
    const endpoint = await verifyEndpoint(
      s.ctx,
      ref,
      ` ${lastVerificationCode(receiver).toLowerCase()} `,
    );
    expect(endpoint).toMatchObject({ verified: true, status: "active" });
    const recorded = await raiseBalanceEvent(s);
    expect(recorded.deliveryIds).toHaveLength(1);
    expect((await rejection(() => verifyEndpoint(s.ctx, ref, "AAAAAAAA"))).code).toBe(
      "invalid_state",
    );
  });

  test("a wrong code counts an attempt and says how many are left", async () => {
    const { s, ref } = await unverified();
    await sendVerificationCode(s.ctx, ref);
    const error = await rejection(() =>
      verifyEndpoint(s.ctx, ref, wrongCode(lastVerificationCode(receiver))),
    );
    expect(error.code).toBe("invalid_request");
    expect(error.message).toContain("4 attempts left");
    expect((await s.services.db.select().from(verificationCodes))[0]?.attemptsUsed).toBe(1);
  });

  test("a code pasted in groups, with spaces, dashes or in lower case, is normalised and verifies", async () => {
    const { s, ref } = await unverified();
    await sendVerificationCode(s.ctx, ref);
    const code = lastVerificationCode(receiver).toLowerCase();
    const grouped = `\t${code.slice(0, 4)} - ${code.slice(4)}\n`;
    expect((await verifyEndpoint(s.ctx, ref, grouped)).verified).toBe(true);
  });

  test("a code of the wrong length is refused without spending an attempt", async () => {
    const { s, ref } = await unverified();
    await sendVerificationCode(s.ctx, ref);
    const code = lastVerificationCode(receiver);
    for (const entered of [code.slice(0, 7), `${code}X`, "   "]) {
      const error = await rejection(() => verifyEndpoint(s.ctx, ref, entered));
      expect(error.code).toBe("invalid_request");
      expect(error.message).toContain("no attempt was used");
    }
    expect((await s.services.db.select().from(verificationCodes))[0]?.attemptsUsed).toBe(0);
    expect((await verifyEndpoint(s.ctx, ref, code)).verified).toBe(true);
  });

  test("after 5 attempts the code is spent: even the correct code is refused until a new one is sent", async () => {
    const { s, ref } = await unverified();
    await sendVerificationCode(s.ctx, ref);
    const code = lastVerificationCode(receiver);
    for (let i = 0; i < 4; i++) await rejection(() => verifyEndpoint(s.ctx, ref, wrongCode(code)));
    expect((await rejection(() => verifyEndpoint(s.ctx, ref, wrongCode(code)))).message).toContain(
      "now spent",
    );
    const spent = await rejection(() => verifyEndpoint(s.ctx, ref, code));
    expect(spent.code).toBe("code_expired");
    expect(spent.message).toContain("tried 5 times");
    await sendVerificationCode(s.ctx, ref);
    expect((await verifyEndpoint(s.ctx, ref, lastVerificationCode(receiver))).verified).toBe(true);
  });

  test("the fifth attempt may still be the right one", async () => {
    const { s, ref } = await unverified();
    await sendVerificationCode(s.ctx, ref);
    const code = lastVerificationCode(receiver);
    for (let i = 0; i < 4; i++) await rejection(() => verifyEndpoint(s.ctx, ref, wrongCode(code)));
    expect((await verifyEndpoint(s.ctx, ref, code)).verified).toBe(true);
  });

  test("a code expires 1 hour after it was sent", async () => {
    const { s, ref } = await unverified();
    await sendVerificationCode(s.ctx, ref);
    const code = lastVerificationCode(receiver);
    s.clock.advance(60 * 60_000 - 1);
    await rejection(() => verifyEndpoint(s.ctx, ref, wrongCode(code)));
    s.clock.advance(1);
    const expired = await rejection(() => verifyEndpoint(s.ctx, ref, code));
    expect(expired.code).toBe("code_expired");
    expect(expired.status).toBe(410);
    expect(expired.message).toContain("expired");
  });

  // The test above would also pass with a shorter lifetime (any refusal passes at 59:59.999).
  // These two pin both sides of the one-hour boundary with the right code.
  test("the right code is accepted at 59 min 59 s after it was sent", async () => {
    const { s, ref } = await unverified();
    await sendVerificationCode(s.ctx, ref);
    s.clock.advance(59 * 60_000 + 59_000);
    expect(await verifyEndpoint(s.ctx, ref, lastVerificationCode(receiver))).toMatchObject({
      verified: true,
    });
  });

  test("the right code is refused at 60 min 00 s after it was sent (410 code_expired)", async () => {
    const { s, ref } = await unverified();
    await sendVerificationCode(s.ctx, ref);
    s.clock.advance(60 * 60_000);
    const expired = await rejection(() =>
      verifyEndpoint(s.ctx, ref, lastVerificationCode(receiver)),
    );
    expect(expired).toMatchObject({ code: "code_expired", status: 410 });
  });

  test("a new send replaces the old code: the old one no longer verifies", async () => {
    const { s, ref } = await unverified();
    await sendVerificationCode(s.ctx, ref);
    const first = lastVerificationCode(receiver);
    await sendVerificationCode(s.ctx, ref);
    const second = lastVerificationCode(receiver);
    expect(second).not.toBe(first);
    expect((await rejection(() => verifyEndpoint(s.ctx, ref, first))).code).toBe("invalid_request");
    expect((await verifyEndpoint(s.ctx, ref, second)).verified).toBe(true);
  });

  test("verifying with no code sent says to send one", async () => {
    const { s, ref } = await unverified();
    expect((await rejection(() => verifyEndpoint(s.ctx, ref, "ABCDEFGH"))).message).toContain(
      "send a new code",
    );
  });
});

describe("test and verification sends share 10 per minute per account (spec 8)", () => {
  test("the 11th send in a minute answers 429 with a message, also after a restart; the next minute is free again", async () => {
    const { s, ref } = await unverified();
    for (let i = 0; i < 5; i++) await sendVerificationCode(s.ctx, ref);
    for (let i = 0; i < 5; i++) await testEndpoint(s.ctx, ref);
    let error: unknown;
    try {
      await testEndpoint(s.ctx, ref);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(429);
    expect((error as ApiError).message).toContain("at most 10 per minute");

    const reopened = await openServices(
      { ...s.services.config },
      { clock: s.clock, log: silentLogger, env: { SVC_MASTER_KEY: testMasterKeyHex } },
    );
    try {
      const ctx = webhookContext(reopened, { resolve: s.ctx.resolve, sender: s.ctx.sender });
      await expect(sendVerificationCode(ctx, ref)).rejects.toMatchObject({ status: 429 });
    } finally {
      await reopened.database.close();
    }
    s.clock.advance(60_000);
    expect((await testEndpoint(s.ctx, ref)).ok).toBe(true);
  });
});
