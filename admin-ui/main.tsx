// The portal: a static front end bundled into the binary, talking only to /portal/api.
import { type JSX, render } from "preact";
import { useCallback, useEffect, useState } from "preact/hooks";
import { api, onSignedOut } from "./api.ts";
import { Layout, type Me } from "./components/layout.tsx";
import { ErrorNotice, Loading } from "./components/ui.tsx";
import { ChangePasswordPage } from "./pages/change-password.tsx";
import { ConnectionsPage } from "./pages/connections.tsx";
import { EndpointDetailPage } from "./pages/endpoint-detail.tsx";
import { KeysPage } from "./pages/keys.tsx";
import { OperatorAccountsPage } from "./pages/operator-accounts.tsx";
import { OperatorImportPage } from "./pages/operator-import.tsx";
import { OperatorMailPage } from "./pages/operator-mail.tsx";
import { OperatorNewAccountPage } from "./pages/operator-new-account.tsx";
import { OperatorSettingsPage } from "./pages/operator-settings.tsx";
import { OverviewPage } from "./pages/overview.tsx";
import { ReceiverKitPage } from "./pages/receiver-kit.tsx";
import { SignInPage } from "./pages/sign-in.tsx";
import { WebhooksPage } from "./pages/webhooks.tsx";
import { matchRoute, navigate, useRoute } from "./router.ts";
import {
  type OperatorRoute,
  type OwnerRoute,
  operatorNav,
  operatorRoutes,
  ownerNav,
  ownerRoutes,
} from "./routes.ts";

function Redirect(props: { to: string }) {
  useEffect(() => navigate(props.to), [props.to]);
  return <Loading />;
}

interface PageProps {
  params: Record<string, string>;
  me: Me;
  onMeChanged: () => Promise<void>;
}
type PageOf = (props: PageProps) => JSX.Element;

// Typed by the route tables: a route listed in routes.ts without a page here does not compile.
const ownerPages: Record<OwnerRoute, PageOf> = {
  "/overview": ({ me, onMeChanged }) => (
    <OverviewPage
      quickStart={me.quickStart}
      isOperator={me.user.isOperator}
      onQuickStartDismissed={() => void onMeChanged()}
    />
  ),
  "/keys": () => <KeysPage />,
  "/webhooks": () => <WebhooksPage />,
  "/webhooks/:id": ({ params }) => (
    <EndpointDetailPage key={params.id} endpointId={params.id ?? ""} />
  ),
  "/connections": () => <ConnectionsPage />,
  "/receiver-kit": () => <ReceiverKitPage />,
  "/password": ({ me }) => (
    <ChangePasswordPage forced={false} email={me.user.email} onChanged={() => undefined} />
  ),
};
const operatorPages: Record<OperatorRoute, PageOf> = {
  "/operator/accounts": () => <OperatorAccountsPage />,
  "/operator/new-account": () => <OperatorNewAccountPage />,
  "/operator/import": () => <OperatorImportPage />,
  "/operator/mail": () => <OperatorMailPage />,
  "/operator/settings": () => <OperatorSettingsPage />,
};

function findPage<R extends string>(routes: readonly R[], pages: Record<R, PageOf>, route: string) {
  for (const pattern of routes) {
    const params = matchRoute(pattern, route);
    if (params) return { page: pages[pattern], params };
  }
  return undefined;
}

/** Every signed-in user owns an account; operators see the operator pages as well. */
function Page(props: { route: string; me: Me; onMeChanged: () => Promise<void> }) {
  const { route, me } = props;
  const found =
    findPage(ownerRoutes, ownerPages, route) ??
    (me.user.isOperator ? findPage(operatorRoutes, operatorPages, route) : undefined);
  if (!found) return <Redirect to="/overview" />;
  const Found = found.page;
  return <Found params={found.params} me={me} onMeChanged={props.onMeChanged} />;
}

function App() {
  const route = useRoute();
  const [me, setMe] = useState<Me | undefined>(undefined);
  const [state, setState] = useState<"loading" | "signed-out" | "ready" | "failed">("loading");
  const [error, setError] = useState<unknown>(undefined);

  const loadMe = useCallback(async () => {
    try {
      // GET /session answers 200 signed in or not (GET /me would answer 401 to a visitor).
      const session = await api<({ signedIn: true } & Me) | { signedIn: false }>("GET", "/session");
      if (session.signedIn) {
        const { signedIn: _, ...current } = session;
        setMe(current);
        setState("ready");
      } else {
        setMe(undefined);
        setState("signed-out");
      }
    } catch (failure) {
      setError(failure);
      setState("failed");
    }
  }, []);

  useEffect(() => {
    void loadMe();
    return onSignedOut(() => {
      setMe(undefined);
      setState("signed-out");
    });
  }, [loadMe]);

  useEffect(() => {
    document.getElementById("main")?.focus();
    // Each page names itself in the title (history, tabs, screen readers).
    const page = [...ownerNav, ...operatorNav].find(
      (item) => route === item.route || route.startsWith(`${item.route}/`),
    );
    document.title = page ? `${page.label} · Svc portal` : "Svc portal";
  }, [route]);

  if (state === "loading") return <Loading label="Loading the Svc portal…" />;
  if (state === "failed") return <ErrorNotice error={error} />;
  if (state === "signed-out" || !me) return <SignInPage onSignedIn={loadMe} />;
  if (me.user.mustChangePassword)
    return (
      <main id="main" class="narrow" tabIndex={-1}>
        <ChangePasswordPage forced email={me.user.email} onChanged={loadMe} />
        <button
          type="button"
          class="button button-secondary sign-out-instead"
          onClick={async () => {
            await api("DELETE", "/session").catch(() => undefined);
            setMe(undefined);
            setState("signed-out");
          }}
        >
          Sign out instead
        </button>
      </main>
    );
  return (
    <Layout
      me={me}
      route={route}
      nav={ownerNav}
      operatorNav={operatorNav}
      onSignedOut={() => {
        setMe(undefined);
        setState("signed-out");
      }}
    >
      <Page route={route} me={me} onMeChanged={loadMe} />
    </Layout>
  );
}

// A framed portal would be a clickjacking surface; SameSite=Strict already drops the session
// in a cross-site frame, and the page refuses to draw itself there as well.
const root = document.getElementById("app");
if (root && window.top === window.self) render(<App />, root);
