// autopilot_decide: the user's answer; returns the next Step.
import { AutopilotError } from "../../protocol/errors.js";
import { DecideInput, StepOutput } from "../schemas.js";
import { Progress } from "../progress.js";
import { clientCanElicit } from "../elicitation.js";
import type { ToolKit } from "./kit.js";
import type { ToolName } from "./names.js";

export function registerDecide({ server, ctx, stepTool, askUser, sessionOf }: ToolKit, name: ToolName): void {
  server.registerTool(
    name,
    {
      description: "Record the user's answer.",
      inputSchema: DecideInput,
      outputSchema: StepOutput,
    },
    (args, extra) =>
      stepTool(
        name,
        async (engine) => {
          // No session: the connection's (kit.sessionOf).
          const session = await sessionOf(args.session, engine, args.stepId);
          try {
            // A host that quotes the user's reply says it relays their words: recorded as that claim
            // ("relayed"), never as a person's answer (human gates still refuse it).
            const words = args.userWords?.trim();
            return {
              step: await engine.decide(
                session,
                args.stepId,
                args.answer,
                args.rationale,
                words ? "relayed" : "host",
                words,
              ),
            };
          } catch (e) {
            // --human-gates refused the host's answer: where the client has a form, the question
            // goes to the user there (their answer, not the host's, is applied).
            if (
              !(e instanceof AutopilotError && e.code === "human_required") ||
              !ctx.elicit ||
              !clientCanElicit(server.server)
            )
              throw e;
            const asked = e.details?.step;
            if (!asked || asked.next.kind !== "ask") throw e;
            const progress = new Progress(extra, ctx.heartbeatMs);
            try {
              const got = await askUser(asked, extra, progress);
              if (!got) throw e;
              return {
                step: await engine.decide(asked.session, asked.stepId, got.answer, got.rationale, "elicited"),
                preface: [
                  `This gate needs a person: the question went to the user in the client's form, who answered "${got.answer}"${got.rationale ? ` (${got.rationale})` : ""}; it is recorded.`,
                ],
              };
            } finally {
              progress.stop();
            }
          }
        },
        { elicit: true },
      )(extra),
  );
}
