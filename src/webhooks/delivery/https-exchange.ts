// A delivery's request over node:https: the transport when deliveries leave from a bound source
// address (Bun's fetch ignores `localAddress`), when a proxy is set in the environment (fetch
// would send through it; node:https never does) or when more sends are under way at once than
// fetch runs at once (sender.ts). One secure context built once (passing `ca` per request costs a
// parse per request, ~5x slower); the host is the checked address, SNI the URL's name.
import https from "node:https";
import type { SecureContext } from "node:tls";
import { discardsBody, type Exchange } from "./exchange.ts";

/** Node accepts a prebuilt secure context per request; its types omit it. */
type TlsRequestOptions = https.RequestOptions & { secureContext?: SecureContext };

export function createHttpsExchange(options: {
  secureContext: SecureContext | undefined;
  localAddress: string | undefined;
}): Exchange {
  const agent = new https.Agent({ keepAlive: true, scheduling: "lifo", maxFreeSockets: 256 });
  return {
    transport: "node:https",
    start({ address, target, headers, body }, events) {
      headers.Host = target.hostHeader;
      headers["Content-Length"] = String(Buffer.byteLength(body));
      const requestOptions: TlsRequestOptions = {
        method: "POST",
        host: address,
        port: target.port,
        path: target.path,
        headers,
        agent,
      };
      if (!target.literal) requestOptions.servername = target.hostname;
      if (options.secureContext) requestOptions.secureContext = options.secureContext;
      if (options.localAddress) requestOptions.localAddress = options.localAddress;
      const request = https.request(requestOptions, (response) => {
        events.answered(response.statusCode ?? 0);
        // A small body is discarded so the socket returns to the pool; anything else closes it.
        response.on("error", () => {});
        response.once("close", () => events.ended());
        if (discardsBody(response.headers["content-length"])) response.resume();
        else response.destroy();
      });
      request.on("error", (error: NodeJS.ErrnoException) => events.failed(error));
      request.end(body);
      return (reason) => request.destroy(reason);
    },
    close: () => agent.destroy(),
  };
}
