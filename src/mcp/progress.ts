// Progress for one tool call. Validation commands and a human answering an in-band question can
// outlast a client's request time-out (60 s in the SDK client); a heartbeat keeps clients that
// reset their time-out on progress waiting. Without a progressToken nothing is sent.
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { ServerNotification, ServerRequest } from "@modelcontextprotocol/sdk/types.js";

export type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

export class Progress {
  private n = 0;
  private last = "working";
  private timer: NodeJS.Timeout | null = null;
  private readonly token: string | number | undefined;

  constructor(
    private readonly extra: Extra,
    heartbeatMs: number,
  ) {
    this.token = extra._meta?.progressToken;
    if (this.token !== undefined && heartbeatMs > 0) {
      this.timer = setInterval(() => this.send(`still ${this.last}`), heartbeatMs);
      this.timer.unref();
    }
  }

  /** Engine's onProgress. */
  readonly report = (message: string): void => {
    this.last = message;
    this.send(message);
  };

  private send(message: string): void {
    if (this.token === undefined) return;
    this.n += 1;
    this.extra
      .sendNotification({
        method: "notifications/progress",
        params: { progressToken: this.token, progress: this.n, message },
      })
      .catch(() => {
        // The client went away; the call's own result (or the next call) tells the rest.
      });
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
