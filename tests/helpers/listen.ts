// Every loopback model server in the tests listens the same way: on 127.0.0.1, a free port, and a
// close that drops kept-alive connections (a client's idle socket must not hold the test open).
import type http from "node:http";
import type { AddressInfo } from "node:net";

export interface Listening {
  url: string;
  close(): Promise<void>;
}

export async function listenOnLoopback(server: http.Server): Promise<Listening> {
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections?.();
        server.close(() => r());
      }),
  };
}
