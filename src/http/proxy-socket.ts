// PROXY_SOCKET (issue 21): a unix socket, next to the TCP port, for the reverse proxy on the same
// machine. Why: a TCP listener cannot stop taking connections without losing some. Closing it resets
// every connection still queued in the kernel, and nginx has already sent its request on those: a
// POST it may not send again, so its client gets a 502. A unix socket can: removing its path makes
// the proxy's next connect fail before anything is sent (nginx retries that on another instance,
// POSTs included), while connections made before, even those not yet accepted, are still served.
// docs/operations.md "Rolling restart".
import { lstat, unlink } from "node:fs/promises";
import type { Server } from "node:http";
import net from "node:net";

export interface ProxySocket {
  /** Removes the path: the proxy's new connections fail at once; those already made are served. */
  withdraw(): Promise<void>;
  /** Stops listening; resolves once every connection made on the socket has ended. */
  close(): Promise<void>;
}

/** Listens on `path` and hands each connection to `server` (the app's HTTP server). */
export async function listenProxySocket(server: Server, path: string, onError: (error: Error) => void): Promise<ProxySocket> {
  await removeStale(path);
  const listener = net.createServer({ allowHalfOpen: true }, (socket) => {
    // The peer is a local process, as a proxy on the loopback address is: TRUST_PROXY=127.0.0.1
    // trusts it, so request.ip is the client it names in X-Forwarded-For.
    Object.defineProperty(socket, "remoteAddress", { value: "127.0.0.1" });
    server.emit("connection", socket);
  });
  await new Promise<void>((resolve, reject) => {
    listener.once("error", reject);
    // Mode 0666: nginx's workers run as another user. Any local process may connect, as it may to
    // the TCP port on 127.0.0.1.
    listener.listen({ path, readableAll: true, writableAll: true }, () => {
      listener.off("error", reject);
      resolve();
    });
  });
  listener.on("error", onError); // an accept failure (EMFILE): logged, the listener goes on
  return {
    withdraw: () => unlink(path).catch(ignoreMissing),
    close: async () => {
      // Two turns of the event loop: the poll phase between them accepts every connection made
      // before the path was removed (closing the listener would reset those still queued).
      await new Promise((resolve) => setImmediate(resolve));
      await new Promise((resolve) => setImmediate(resolve));
      await new Promise<void>((resolve) => listener.close(() => resolve()));
    },
  };
}

/** A socket file left by a process that was killed is removed; anything else at `path` is refused. */
async function removeStale(path: string): Promise<void> {
  const stat = await lstat(path).catch(ignoreMissing);
  if (!stat) return;
  if (!stat.isSocket()) throw new Error(`PROXY_SOCKET ${path} exists and is not a socket`);
  const listening = await new Promise<boolean>((resolve) => {
    const probe = net.connect(path);
    probe.once("connect", () => resolve(true)).once("error", () => resolve(false));
    probe.once("connect", () => probe.destroy());
  });
  if (listening) throw new Error(`PROXY_SOCKET ${path}: another process is listening on it`);
  await unlink(path).catch(ignoreMissing);
}

function ignoreMissing(error: NodeJS.ErrnoException): undefined {
  if (error.code === "ENOENT") return undefined;
  throw error;
}
