// The shape of a verification code (spec 2 "Verification code": no look-alike characters), shared
// by the server and the portal's page: both normalise what a person typed or pasted the same way,
// so spacing or lower case never costs one of the 5 attempts.

/** Letters and digits that cannot be mistaken for each other (no I, L, O, 0, 1). */
export const verificationCodeAlphabet = "ABCDEFGHJKMNPQRSTUVWXYZ23456789";
export const verificationCodeLength = 8;

/**
 * What the person meant: spaces, tabs, line breaks and dashes (as a code is often read out or
 * pasted in groups, "abcd efgh" or "ABCD-EFGH") removed, letters upper-cased.
 */
export function normaliseVerificationCode(entered: string): string {
  return entered.replace(/[\s\-‐‑–—]+/g, "").toUpperCase();
}

/** Why a normalised code cannot be right, or undefined when its length is right. */
export function verificationCodeProblem(normalised: string): string | undefined {
  if (normalised.length === 0) return "enter the code";
  if (normalised.length !== verificationCodeLength)
    return `the code has ${verificationCodeLength} characters; this has ${normalised.length}`;
  return undefined;
}
