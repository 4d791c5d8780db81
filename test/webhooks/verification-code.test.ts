// The code normalisation shared by the server and the portal page.
import { describe, expect, test } from "bun:test";
import {
  normaliseVerificationCode,
  verificationCodeProblem,
} from "../../src/webhooks/events/verification-code.ts";

describe("verification code as typed or pasted", () => {
  test("spaces, tabs, line breaks and dashes are dropped and letters upper-cased", () => {
    expect(normaliseVerificationCode(" abcd efgh\n")).toBe("ABCDEFGH");
    expect(normaliseVerificationCode("ABCD-efgh")).toBe("ABCDEFGH");
    expect(normaliseVerificationCode("ab\tcd–ef gh")).toBe("ABCDEFGH");
  });

  test("only a code of exactly 8 characters has no problem; the problem names the length", () => {
    expect(verificationCodeProblem("ABCDEFGH")).toBeUndefined();
    expect(verificationCodeProblem("")).toBe("enter the code");
    expect(verificationCodeProblem("ABCDEFG")).toContain("this has 7");
    expect(verificationCodeProblem("ABCDEFGHJ")).toContain("this has 9");
  });
});
