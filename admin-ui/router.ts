// Hash routes (#/keys, #/endpoints/<id>): no server routes needed and nothing secret in a URL.
import { useEffect, useState } from "preact/hooks";

function currentRoute(): string {
  return window.location.hash.replace(/^#/, "") || "/";
}

export function useRoute(): string {
  const [route, setRoute] = useState(currentRoute());
  useEffect(() => {
    const update = () => setRoute(currentRoute());
    window.addEventListener("hashchange", update);
    return () => window.removeEventListener("hashchange", update);
  }, []);
  return route;
}

export function navigate(route: string): void {
  window.location.hash = route;
}

/** Matches `/endpoints/:id` style patterns; returns the params or undefined. */
export function matchRoute(pattern: string, route: string): Record<string, string> | undefined {
  const names: string[] = [];
  const regex = new RegExp(
    `^${pattern.replace(/:([a-zA-Z]+)/g, (_, name: string) => {
      names.push(name);
      return "([^/]+)";
    })}$`,
  );
  const found = route.match(regex);
  if (!found) return undefined;
  return Object.fromEntries(names.map((name, i) => [name, decodeURIComponent(found[i + 1] ?? "")]));
}
