// `bun run screenshots` photographs every portal page: its page list (scripts/screenshots/
// pages.ts) is checked against the route table the portal draws its pages from
// (admin-ui/routes.ts; main.tsx has no page outside it), so a page added without a screenshot
// fails here.
import { describe, expect, test } from "bun:test";
import { operatorNav, operatorRoutes, ownerNav, ownerRoutes } from "../../admin-ui/routes.ts";
import { shots } from "../../scripts/screenshots/pages.ts";

describe("the screenshot script covers the portal", () => {
  test("every owner route is photographed signed in as an owner", () => {
    const photographed = new Set(shots.filter((s) => s.as === "owner").map((s) => s.route));
    expect(ownerRoutes.filter((route) => !photographed.has(route))).toEqual([]);
  });

  test("every operator route is photographed signed in as an operator", () => {
    const photographed = new Set(shots.filter((s) => s.as === "operator").map((s) => s.route));
    expect(operatorRoutes.filter((route) => !photographed.has(route))).toEqual([]);
  });

  test("the signed-out sign-in page is photographed, and no shot names a route the portal lacks", () => {
    expect(shots.filter((s) => s.as === "signed-out").map((s) => s.route)).toEqual([null]);
    const known = new Set<string | null>([...ownerRoutes, ...operatorRoutes, null]);
    expect(shots.filter((s) => !known.has(s.route)).map((s) => s.name)).toEqual([]);
  });

  test("each screenshot has its own file name", () => {
    const names = shots.map((s) => s.name);
    expect(new Set(names).size).toBe(names.length);
  });

  test("every navigation link leads to a page in the route table", () => {
    const known = new Set<string>([...ownerRoutes, ...operatorRoutes]);
    expect([...ownerNav, ...operatorNav].filter((item) => !known.has(item.route))).toEqual([]);
  });
});
