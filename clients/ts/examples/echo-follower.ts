// Echo follower: registers with the chatbus supervisor and echoes every
// message of its thread back into the thread.
//
//   npm run build && node dist/examples/echo-follower.js [--profile P]
//       [--socket PATH] [--secret-file PATH] [--profile-key KEY] [--thread-name NAME]
//
// The socket and secret default to the profile's paths; the environment
// variables CHATBUS_SOCKET and CHATBUS_SECRET_FILE override them, and flags
// override both. Stops cleanly (unregisters) on SIGINT or SIGTERM.

import { parseArgs } from "node:util";

import { connect, types } from "../src/index.js";

async function main(): Promise<number> {
  const { values: args } = parseArgs({
    options: {
      profile: { type: "string", default: "default" },
      socket: { type: "string", default: process.env.CHATBUS_SOCKET },
      "secret-file": { type: "string", default: process.env.CHATBUS_SECRET_FILE },
      "profile-key": { type: "string", default: `manual:${process.ppid}` },
      "thread-name": { type: "string", default: "" },
    },
  });

  const client = await connect({ profile: args.profile, socket: args.socket, secretFile: args["secret-file"] });
  try {
    const follower = await client.register({ profileKey: args["profile-key"]!, threadName: args["thread-name"] });
    // A signal ends the loop once the update in hand is echoed and acked;
    // close() below then unregisters.
    const stop = new AbortController();
    process.once("SIGINT", () => stop.abort());
    process.once("SIGTERM", () => stop.abort());
    try {
      const origin = types.Origin[follower.origin];
      const t = follower.target;
      const where = t ? `${t.provider} chat ${t.chat} thread ${t.thread}` : "no thread yet";
      console.error(`echo-follower: registered ${follower.instanceId} (ORIGIN_${origin}, ${where})`);
      for await (const update of follower.updates({ signal: stop.signal })) {
        if (update.kind === types.UpdateKind.MESSAGE && update.text) {
          // The key makes a replayed update (after a restart) echo once.
          const key = `echo:${update.target?.chat}:${update.target?.thread}:${update.seq}`;
          await follower.send(update.text, { idempotencyKey: key }); // Markdown, on any platform
        }
        await follower.ack(update.seq);
      }
      if (follower.error) throw follower.error;
      console.error("echo-follower: stopped");
      return 0;
    } finally {
      await follower.close();
    }
  } finally {
    client.close();
  }
}

main().then(
  (code) => process.exit(code),
  (e) => {
    console.error(`echo-follower: ${(e as Error).message}`);
    process.exit(1);
  },
);
