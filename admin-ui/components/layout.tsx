import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { AttentionBanner } from "./attention-banner.tsx";

export interface Me {
  user: { id: string; email: string; isOperator: boolean; mustChangePassword: boolean };
  account: { id: string; name: string };
  /** The quick start is shown until the owner dismisses it. */
  quickStart: boolean;
}

export interface NavItem {
  route: string;
  label: string;
}

export function Layout(props: {
  me: Me;
  route: string;
  nav: NavItem[];
  operatorNav: NavItem[];
  onSignedOut: () => void;
  children: ComponentChildren;
}) {
  const [menuOpen, setMenuOpen] = useState(false);
  const link = (item: NavItem) => {
    const current = props.route === item.route || props.route.startsWith(`${item.route}/`);
    return (
      <li>
        <a
          href={`#${item.route}`}
          aria-current={current ? "page" : undefined}
          onClick={() => setMenuOpen(false)}
        >
          {item.label}
        </a>
      </li>
    );
  };
  return (
    <div class="shell">
      {/* The URL's hash is the page route, so skipping is a button that moves focus. */}
      <button
        type="button"
        class="skip-link button"
        onClick={() => document.getElementById("main")?.focus()}
      >
        Skip to content
      </button>
      <header class="topbar">
        <span class="brand">Svc</span>
        <button
          type="button"
          class="menu-toggle button button-secondary"
          aria-expanded={menuOpen}
          aria-controls="nav"
          onClick={() => setMenuOpen(!menuOpen)}
        >
          Menu
        </button>
        <nav id="nav" class={menuOpen ? "open" : ""} aria-label="Portal">
          <ul>{props.nav.map(link)}</ul>
          {props.me.user.isOperator && (
            <>
              <p class="nav-heading">Operator</p>
              <ul>{props.operatorNav.map(link)}</ul>
            </>
          )}
        </nav>
        <div class="who">
          <span class="muted small" data-testid="signed-in-as">
            {props.me.user.email}
          </span>
          <a href="#/password" class="small">
            Password
          </a>
          <button
            type="button"
            class="button button-secondary"
            onClick={async () => {
              await api("DELETE", "/session").catch(() => undefined);
              props.onSignedOut();
            }}
          >
            Sign out
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        <AttentionBanner route={props.route} />
        {props.children}
      </main>
    </div>
  );
}
