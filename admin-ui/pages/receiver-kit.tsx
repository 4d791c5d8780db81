// The receiver kit: the files of examples/receiver, bundled into the
// portal, each with Copy and Download, and the few steps to use them. A user of the single
// executable has no examples/ folder; this page is where they get the kit.
import { useEffect, useMemo } from "preact/hooks";
import { CopyButton } from "../components/copy.tsx";
import { CopyValue } from "../components/ui.tsx";
import { type ReceiverKitFile, receiverKitFiles } from "../receiver-kit/files.ts";
import type { Overview } from "../types.ts";
import { useResource } from "../use-resource.ts";

function lineCount(text: string): number {
  return text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
}

/** A download of the text itself (a blob: URL), so nothing is fetched from the server. */
function useDownloadUrl(text: string): string {
  const url = useMemo(
    () => URL.createObjectURL(new Blob([text], { type: "text/plain;charset=utf-8" })),
    [text],
  );
  useEffect(() => () => URL.revokeObjectURL(url), [url]);
  return url;
}

function KitFile(props: { file: ReceiverKitFile }) {
  const { file } = props;
  const url = useDownloadUrl(file.text);
  const headingId = `kit-file-${file.fileName.replace(/\W/g, "-")}`;
  return (
    <li class="card kit-file" data-testid="kit-file" data-path={file.path}>
      <div class="card-head">
        <h3 id={headingId} class="mono">
          {file.path}
        </h3>
        <span class="small muted">
          {lineCount(file.text)} lines · {file.runsOn}
        </span>
      </div>
      <p>{file.about}</p>
      <div class="actions">
        <CopyButton value={file.text} label={file.path} />
        <a
          class="button button-small button-secondary"
          href={url}
          download={file.fileName}
          aria-label={`Download ${file.path}`}
        >
          Download
        </a>
      </div>
      <details class="kit-source">
        <summary>Show {file.path}</summary>
        <pre class="kit-code" data-testid="kit-file-text">
          <code>{file.text}</code>
        </pre>
      </details>
    </li>
  );
}

function RunCommand(props: { baseUrl: string }) {
  const command = [
    "SVC_WEBHOOK_SECRET='whsec_...' \\",
    "SVC_API_KEY='svk_...' \\",
    `SVC_API_BASE='${props.baseUrl}' \\`,
    "RECEIVER_DB=./receiver.db PORT=3000 \\",
    "bun receiver.ts",
  ].join("\n");
  return (
    <>
      <pre class="kit-command" data-testid="kit-run-command">
        <code>{command}</code>
      </pre>
      <CopyButton value={command} label="run command" />
    </>
  );
}

export function ReceiverKitPage() {
  // The instance's own base URL goes into the run command; the page works without it.
  const overview = useResource<Overview>("/overview");
  const baseUrl = overview.data?.baseUrl ?? "https://bank-api.example.com";
  return (
    <section class="receiver-kit">
      <h1>Receiver kit</h1>
      <p class="muted">
        What your application needs to receive Svc webhooks correctly: small files to copy, tested
        against Svc's real delivery engine. They are the files of <code>examples/receiver</code> in
        the Svc distribution, exactly as this version of Svc ships them.
      </p>
      <section class="card" aria-labelledby="kit-howto-heading">
        <h2 id="kit-howto-heading">How to use it</h2>
        <ol class="quick-start-steps">
          <li>
            <strong>Only verification:</strong> copy <code>verify.ts</code> (TypeScript) or{" "}
            <code>svc_webhooks.py</code> (Python) into your application.{" "}
            <strong>The whole pattern on Bun:</strong> download <code>verify.ts</code>,{" "}
            <code>store.ts</code> and <code>receiver.ts</code> into one folder.
          </li>
          <li>
            Give it the endpoint's signing secret (<code>whsec_…</code>, shown once when you{" "}
            <a href="#/webhooks">registered the endpoint</a> or rotated its secret).
          </li>
          <li>
            Verify over the raw request bytes, before parsing; answer 400 when verification fails.
            Then de-duplicate on the event id and answer 2xx at once (within 10 seconds); do the
            work afterwards.
          </li>
          <li>
            To run the example receiver (it prints the verification code it receives):
            <RunCommand baseUrl={baseUrl} />
          </li>
          <li>
            Deliveries go only to <code>https://</code> URLs on port 443 with a public certificate:
            put the receiver behind your TLS reverse proxy.{" "}
            <a href="#/webhooks">Register its URL</a>, send a verification code from the endpoint's
            page and enter the code the receiver printed.
          </li>
        </ol>
        {overview.data?.deliverySourceIp && (
          <p>
            If your receiver sits behind a firewall, allow-list the address webhooks come from:{" "}
            <CopyValue value={overview.data.deliverySourceIp} label="delivery source IP" />
          </p>
        )}
        <p class="small muted">
          The README below has the full rules, what the example receiver does with each event, and
          how to move it to Node.js.
        </p>
      </section>
      <h2>Files</h2>
      <ul class="cards kit-files">
        {receiverKitFiles.map((file) => (
          <KitFile key={file.path} file={file} />
        ))}
      </ul>
    </section>
  );
}
