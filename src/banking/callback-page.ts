// GET /connect/callback (issue 17): where the bank sends the user back after they approved (or
// declined) at Enable Banking. It completes the link and says what happened in plain words,
// with a link back to the portal. No session is needed: the one-time `state` names the account.
import { Hono } from "hono";
import { ApiError } from "../http/errors.ts";
import type { Services } from "../services.ts";
import { completeLink } from "./link.ts";

function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch] ?? ch,
  );
}

export function callbackPage(title: string, message: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 36rem; margin: 4rem auto; padding: 0 1rem">
<h1>${escapeHtml(title)}</h1>
<p>${escapeHtml(message)}</p>
<p><a href="/">Back to your account</a></p>
</body></html>`;
}

export function connectCallbackRoutes(services: Services): Hono {
  const app = new Hono();
  app.get("/connect/callback", async (c) => {
    const state = c.req.query("state");
    const code = c.req.query("code");
    const error = c.req.query("error");
    c.header("Cache-Control", "no-store");
    c.header("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'");
    if (!state || state.length > 200) {
      return c.html(
        callbackPage(
          "This link is not complete",
          "The bank's answer did not say which connection it belongs to. Start connecting the bank again from your account.",
        ),
        400,
      );
    }
    try {
      const result = await completeLink(services, {
        provider: "enable_banking",
        state,
        ...(code ? { code: code.slice(0, 2000) } : {}),
        ...(error ? { error: error.slice(0, 200) } : {}),
      });
      if (result.status === "rejected") {
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
      return c.html(
        callbackPage("The bank could not be connected", failure.message),
        failure.code === "unavailable" ? 503 : 400,
      );
    }
  });
  return app;
}
