// The portal: a static front end bundled into the binary, talking only to /portal/api.
import { render } from "preact";
import { useCallback, useEffect, useState } from "preact/hooks";
import { ApiFailure, api, onSignedOut } from "./api.ts";
import { Layout, type Me, type NavItem } from "./components/layout.tsx";
import { ErrorNotice, Loading } from "./components/ui.tsx";
import { ChangePasswordPage } from "./pages/change-password.tsx";
import { OperatorAccountsPage } from "./pages/operator-accounts.tsx";
import { OperatorSettingsPage } from "./pages/operator-settings.tsx";
import { SignInPage } from "./pages/sign-in.tsx";
import { navigate, useRoute } from "./router.ts";

const ownerNav: NavItem[] = [{ route: "/password", label: "Password" }];
const operatorNav: NavItem[] = [
  { route: "/operator/accounts", label: "Accounts" },
  { route: "/operator/settings", label: "Settings" },
];

function Page(props: { route: string; me: Me; reloadMe: () => Promise<void> }) {
  const { route, me } = props;
  if (route === "/password")
    return <ChangePasswordPage forced={false} email={me.user.email} onChanged={() => undefined} />;
  if (me.user.isOperator && route === "/operator/accounts") return <OperatorAccountsPage />;
  if (me.user.isOperator && route === "/operator/settings") return <OperatorSettingsPage />;
  navigate(me.user.isOperator ? "/operator/accounts" : "/password");
  return <Loading />;
}

function App() {
  const route = useRoute();
  const [me, setMe] = useState<Me | undefined>(undefined);
  const [state, setState] = useState<"loading" | "signed-out" | "ready" | "failed">("loading");
  const [error, setError] = useState<unknown>(undefined);

  const loadMe = useCallback(async () => {
    try {
      setMe(await api<Me>("GET", "/me"));
      setState("ready");
    } catch (failure) {
      if (failure instanceof ApiFailure && failure.status === 401) {
        setMe(undefined);
        setState("signed-out");
      } else {
        setError(failure);
        setState("failed");
      }
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
  }, [route]);

  if (state === "loading") return <Loading label="Loading the Svc portal…" />;
  if (state === "failed") return <ErrorNotice error={error} />;
  if (state === "signed-out" || !me) return <SignInPage onSignedIn={loadMe} />;
  if (me.user.mustChangePassword)
    return <ChangePasswordPage forced email={me.user.email} onChanged={loadMe} />;
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
      <Page route={route} me={me} reloadMe={loadMe} />
    </Layout>
  );
}

// A framed portal would be a clickjacking surface; SameSite=Strict already drops the session
// in a cross-site frame, and the page refuses to draw itself there as well.
const root = document.getElementById("app");
if (root && window.top === window.self) render(<App />, root);
