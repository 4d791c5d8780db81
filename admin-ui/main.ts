// The portal front end; it talks only to /portal/api on the same origin.
const root = document.getElementById("app");
if (root) {
  root.innerHTML = "<h1>Svc portal</h1><p>Sign-in arrives with the portal.</p>";
}
