// A permission gate for the pi tests: pi asks before every bash command
// (ctx.ui.confirm), the way gate extensions people install do. The chatbus
// package relays the question into the thread.
export default function (pi: any) {
  pi.on("tool_call", async (event: any, ctx: any) => {
    if (event.toolName !== "bash") return;
    const ok = await ctx.ui.confirm("Run this command?", String(event.input.command));
    if (!ok) return { block: true, reason: "the person said no" };
  });
}
