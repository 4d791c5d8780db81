// Portal passwords: argon2id through Bun.password (docs/security.md "What is secret, and where it
// lives").
import { randomFromAlphabet } from "../crypto/tokens.ts";

const minPasswordLength = 12;
export const maxPasswordLength = 256;

export function passwordProblem(password: string): string | undefined {
  if (password.length < minPasswordLength)
    return `must be at least ${minPasswordLength} characters`;
  if (password.length > maxPasswordLength) return `must be at most ${maxPasswordLength} characters`;
  return undefined;
}

export function hashPassword(password: string): Promise<string> {
  return Bun.password.hash(password, { algorithm: "argon2id" });
}

export function verifyPassword(password: string, hash: string): Promise<boolean> {
  return Bun.password.verify(password, hash);
}

const passwordAlphabet = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789";

/** A one-time password that is easy to copy: 20 unambiguous characters (~117 bits). */
export function generateOneTimePassword(): string {
  return randomFromAlphabet(passwordAlphabet, 20);
}
