import { describe, expect, test } from "bun:test";
import { hashPassword, verifyPassword } from "../../src/accounts/passwords.ts";
import { createServiceAccount } from "../../src/accounts/service-accounts.ts";
import { decoyPasswordHash, signIn } from "../../src/accounts/sign-in.ts";
import { createFakeClock } from "../support/fake-clock.ts";
import { testPassword } from "../support/portal.ts";
import { createTestServices } from "../support/services.ts";

// Sign-in timing must not reveal which e-mails exist (an unknown e-mail must not skip the hash
// work). Proven by counting verifications, not by timing: every path past the throttle
// verifies one password against one argon2id hash of the same cost.
const clock = createFakeClock();
const services = await createTestServices({ clock });

function countingVerify() {
  const hashes: string[] = [];
  return {
    hashes,
    verify: (password: string, hash: string) => {
      hashes.push(hash);
      return verifyPassword(password, hash);
    },
  };
}

/** The argon2id parameters of a PHC string ("$argon2id$v=19$m=65536,t=2,p=1$..."). */
function costOf(hash: string): string {
  return hash.split("$").slice(1, 4).join("$");
}

describe("sign-in spends the same password-hash work whether or not the e-mail exists", () => {
  test("a known e-mail with a wrong password verifies once, against the user's hash", async () => {
    await createServiceAccount(services.db, clock, {
      email: "timing-known@example.com",
      password: testPassword,
    });
    const counter = countingVerify();
    await expect(
      signIn(services.db, clock, { email: "timing-known@example.com", password: "wrong" }, counter),
    ).rejects.toMatchObject({ code: "invalid_credentials" });
    expect(counter.hashes).toHaveLength(1);
    expect(counter.hashes[0]).not.toBe(await decoyPasswordHash());
  });

  test("an unknown e-mail verifies once too, against the decoy hash", async () => {
    const counter = countingVerify();
    await expect(
      signIn(
        services.db,
        clock,
        { email: "timing-nobody@example.com", password: "wrong" },
        counter,
      ),
    ).rejects.toMatchObject({ code: "invalid_credentials" });
    expect(counter.hashes).toEqual([await decoyPasswordHash()]);
  });

  test("text that is not an e-mail at all still costs one verification", async () => {
    const counter = countingVerify();
    await expect(
      signIn(services.db, clock, { email: "not an e-mail", password: "wrong" }, counter),
    ).rejects.toMatchObject({ code: "invalid_credentials" });
    expect(counter.hashes).toHaveLength(1);
  });

  test("the decoy is made once per process, with the same algorithm and cost as a user's hash", async () => {
    const first = await decoyPasswordHash();
    expect(await decoyPasswordHash()).toBe(first);
    expect(first).toStartWith("$argon2id$");
    expect(costOf(first)).toBe(costOf(await hashPassword("a user's real password")));
    expect(await verifyPassword("wrong", first)).toBe(false);
  });

  test("a right password still signs in, with one verification", async () => {
    const counter = countingVerify();
    const { userId } = await signIn(
      services.db,
      clock,
      { email: "timing-known@example.com", password: testPassword },
      counter,
    );
    expect(userId).toBeString();
    expect(counter.hashes).toHaveLength(1);
  });
});
