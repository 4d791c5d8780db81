// Every page of the portal by its hash route, in one table: main.tsx draws pages only through
// it (a route missing here has no page), and the screenshot script's page list is checked
// against it (test/portal/screenshot-pages.test.ts), so a new page cannot go unphotographed.
import type { NavItem } from "./components/layout.tsx";

/** Pages of every signed-in user (each owns an account). Patterns take `:params`. */
export const ownerRoutes = [
  "/overview",
  "/keys",
  "/webhooks",
  "/webhooks/:id",
  "/connections",
  "/receiver-kit",
  "/password",
] as const;

/** Pages only operators get; anyone else is sent to the overview. */
export const operatorRoutes = [
  "/operator/accounts",
  "/operator/new-account",
  "/operator/import",
  "/operator/mail",
  "/operator/settings",
] as const;

export type OwnerRoute = (typeof ownerRoutes)[number];
export type OperatorRoute = (typeof operatorRoutes)[number];

export const ownerNav: NavItem[] = [
  { route: "/overview", label: "Overview" },
  { route: "/keys", label: "API keys" },
  { route: "/webhooks", label: "Webhooks" },
  { route: "/connections", label: "Connections" },
  { route: "/receiver-kit", label: "Receiver kit" },
];
export const operatorNav: NavItem[] = [
  { route: "/operator/accounts", label: "Accounts" },
  { route: "/operator/new-account", label: "Create account" },
  { route: "/operator/import", label: "Import" },
  { route: "/operator/mail", label: "Mail outbox" },
  { route: "/operator/settings", label: "Settings" },
];
