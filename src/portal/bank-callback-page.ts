// /connect/callback: where the bank sends the user back after they approved (or
// declined) at Enable Banking. It completes the link and says what happened in plain words,
// with a link back to the portal. The one-time `state` names the account; the browser must also
// prove it may finish the link (banking/link.ts): its link cookie, or a signed-in owner (or, for a
// link started from the CLI, an operator). Without proof the page asks to sign in and offers
// Continue, a same-origin POST of the same answer, which carries the (SameSite=Strict) session
// cookie that the bank's cross-site redirect could not.
import { type Context, Hono } from "hono";
import { resolveSession } from "../accounts/sessions.ts";
import { completeLink, type LinkDeps, type LinkProof } from "../banking/link.ts";
import { ApiError } from "../core/errors.ts";
import { sessionCookie } from "../http/cookies.ts";
import { sameOriginOnly } from "../http/same-origin.ts";
import { linkCookie } from "./link-cookie.ts";

function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch] ?? ch,
  );
}

function callbackPage(title: string, message: string, extra = ""): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 36rem; margin: 4rem auto; padding: 0 1rem">
<main>
<h1>${escapeHtml(title)}</h1>
<p>${escapeHtml(message)}</p>
${extra}<p><a href="/">Back to your account</a></p>
</main>
</body></html>`;
}

interface CallbackAnswer {
  state: string;
  code?: string | undefined;
  error?: string | undefined;
}

/** Continue: the same answer posted from this origin once the user has signed in. */
function continueForm(answer: CallbackAnswer): string {
  const hidden = (name: string, value: string | undefined) =>
    value === undefined ? "" : `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`;
  return `<form method="post" action="/connect/callback">
${hidden("state", answer.state)}${hidden("code", answer.code)}${hidden("error", answer.error)}
<p><a href="/" target="_blank" rel="noopener">Sign in (opens in a new tab)</a></p>
<button type="submit">Continue</button>
</form>
`;
}

export function connectCallbackRoutes(services: LinkDeps): Hono {
  const app = new Hono();
  const session = sessionCookie(services.config.baseUrl);
  const link = linkCookie(services.config.baseUrl);

  async function proofOf(c: Context): Promise<LinkProof> {
    const token = session.read(c);
    const principal = token ? await resolveSession(services.db, services.clock, token) : undefined;
    return {
      browserNonce: link.read(c),
      signedIn: principal
        ? { serviceAccountId: principal.serviceAccountId, isOperator: principal.isOperator }
        : undefined,
    };
  }

  async function answer(c: Context, input: Partial<CallbackAnswer>): Promise<Response> {
    c.header("Cache-Control", "no-store");
    c.header(
      "Content-Security-Policy",
      "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'",
    );
    const state = input.state;
    if (!state || state.length > 200) {
      return c.html(
        callbackPage(
          "This link is not complete",
          "The bank's answer did not say which connection it belongs to. Start connecting the bank again from your account.",
        ),
        400,
      );
    }
    const parsed: CallbackAnswer = {
      state,
      ...(input.code ? { code: input.code.slice(0, 2000) } : {}),
      ...(input.error ? { error: input.error.slice(0, 200) } : {}),
    };
    try {
      const result = await completeLink(services, {
        provider: "enable_banking",
        ...parsed,
        proof: await proofOf(c),
      });
      if (result.status === "rejected" || result.declined) {
        return c.html(
          callbackPage(
            "The bank was not connected",
            "You did not approve access at your bank, so nothing was connected. You can try again from your account at any time.",
          ),
        );
      }
      return c.html(
        callbackPage(
          "Your bank is connected",
          "Access was approved. Your accounts appear in your account now; their data is kept up to date automatically.",
        ),
      );
    } catch (failure) {
      if (!(failure instanceof ApiError)) throw failure;
      if (failure.code === "forbidden") {
        return c.html(
          callbackPage(
            "Sign in to finish connecting the bank",
            failure.message,
            continueForm(parsed),
          ),
          403,
        );
      }
      return c.html(
        callbackPage("The bank could not be connected", failure.message),
        failure.code === "unavailable" ? 503 : 400,
      );
    }
  }

  app.get("/connect/callback", (c) =>
    answer(c, {
      state: c.req.query("state"),
      code: c.req.query("code"),
      error: c.req.query("error"),
    }),
  );
  // Continue from the page above: same-origin only (a session cookie must not be borrowed by
  // another site's form).
  app.post("/connect/callback", sameOriginOnly(services.config.baseUrl), async (c) => {
    const form = await c.req.parseBody();
    const field = (name: string) => (typeof form[name] === "string" ? form[name] : undefined);
    return answer(c, { state: field("state"), code: field("code"), error: field("error") });
  });
  return app;
}
