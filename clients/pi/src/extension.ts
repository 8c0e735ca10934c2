// The pi extension: every pi session a chatbus follower with its own thread.
//
// One Session per session runtime: made at session_start, ended at
// session_shutdown (pi replaces the runtime on /reload, /new, /resume and
// /fork, and ends it on quit). A Session connects in the background (pi's
// startup does not wait for the supervisor), registers with its
// predecessor's handoff token, and runs one update loop that hands the
// thread's updates to pi in order. What pi says streams back into the
// thread (stream.ts); pi's dialogs are asked there too (prompts.ts).
//
// The profile key (which thread is the session's) is, in order:
// CHATBUS_PROFILE_KEY / profileKey in chatbus.json; the key of the session
// this runtime replaced in the same process (a /new keeps the thread); the
// key recorded for this pi session id (a session that once took over a
// thread); "pi:<pi session id>", which /reload and `pi --continue` keep.

import * as fs from "node:fs";
import * as path from "node:path";

import {
  type Client,
  type Follower,
  ReplacedError,
  SuspendedError,
  TakenOverError,
  UnavailableError,
  types,
} from "@chatbus/client";
import type { ExtensionAPI, ExtensionCommandContext, ExtensionContext } from "@earendil-works/pi-coding-agent";
import type { Type as TypeBox } from "typebox";

import { AckTracker } from "./acks.js";
import { dial, originName, register } from "./connection.js";
import { MAX_FILES, classify, download } from "./inbound.js";
import { PromptRelay, escapeMarkdown } from "./prompts.js";
import { type Settings, loadSettings } from "./settings.js";
import { StateDir } from "./state.js";
import { AnswerStream, type StreamButton } from "./stream.js";

/** The button under a streaming answer that stops the run. */
export const STOP_DATA = "pi:stop";
const STOP_BUTTON: StreamButton = { label: "⏹ Stop", data: STOP_DATA };

/** How long a session's shutdown waits for its last calls and the handoff. */
const SHUTDOWN_MS = 5000;

/** How often "typing" is renewed while pi works (the supervisor answers renewals while it shows). */
const TYPING_EVERY_MS = 4000;

/** pi's commands that a person may send from the thread, run through /chatbus. */
const SESSION_COMMANDS = new Set(["new", "reload", "compact"]);

/** Stops the run: what /stop, /abort and /esc do in the thread. */
const STOP_COMMANDS = new Set(["stop", "abort", "esc", "cancel"]);

// What a runtime leaves for the next one in the same process (a /reload or
// a session switch): the profile key, so the next session keeps the thread.
// On globalThis: pi may load the extension's module afresh for the next
// runtime.
const CARRY = Symbol.for("chatbus.pi.carry");
type Carry = { profileKey: string };
const carried = globalThis as typeof globalThis & { [CARRY]?: Carry };

/** What the extension takes from pi's host modules (see index.ts). */
export interface Host {
  getAgentDir: () => string;
  Type: typeof TypeBox;
}

/** A message given to pi, not yet known to be in the session. */
interface Given {
  seq: bigint;
  text: string;
  at: number;
}

export default function chatbus(pi: ExtensionAPI, host: Host): void {
  const { Type } = host;
  let s: Session | undefined;

  pi.on("session_start", (event, ctx) => {
    s = new Session(pi, ctx, event.reason, host);
    s.start();
  });
  pi.on("session_shutdown", async (event) => {
    const ending = s;
    s = undefined;
    await ending?.shutdown(event.reason);
  });
  pi.on("agent_start", () => s?.agentStart());
  pi.on("agent_settled", () => s?.agentSettled());
  pi.on("message_start", (event) => s?.messageStart(event.message));
  pi.on("message_update", (event) => s?.messageUpdate(event.message));
  pi.on("message_end", (event) => s?.messageEnd(event.message));
  pi.on("tool_execution_start", (event) => s?.toolStart(event.toolName, event.args));

  pi.registerCommand("chatbus", {
    description: "chatbus: this session's chat thread (status; new, reload, compact as sent from the thread)",
    handler: async (args, ctx) => {
      const [verb] = args.trim().split(/\s+/);
      if (!verb || verb === "status") {
        ctx.ui.notify(s?.status() ?? "chatbus: no session", "info");
        return;
      }
      await runSessionCommand(verb, ctx);
    },
  });

  pi.registerTool({
    name: "reply",
    label: "Reply in the chat",
    description:
      "Send a message, and files, to the person in this session's chat thread (Telegram, Slack, Discord or the chatbus playground). " +
      "Your answers already stream into the thread as you write them: use reply for files, or to write there on your own " +
      "(progress while a long task runs). The text is Markdown; long text is split into several messages.",
    promptSnippet: "Send a message or files to the person's chat thread",
    parameters: Type.Object({
      text: Type.Optional(Type.String({ description: "The message, in Markdown." })),
      files: Type.Optional(Type.Array(Type.String(), { description: "Absolute paths of files to send (images go as photos), 50 MB each at most." })),
    }),
    async execute(_id, params) {
      if (!s) throw new Error("no chat session");
      const ids = await s.reply(params.text ?? "", params.files ?? []);
      return { content: [{ type: "text", text: `sent ${ids.length} message(s): ${ids.join(", ")}` }], details: { messageIds: ids } };
    },
  });
  pi.registerTool({
    name: "react",
    label: "React in the chat",
    description:
      "Put an emoji reaction on a message of this session's chat thread: by default the person's latest message " +
      "(Telegram accepts its own set, e.g. 👍 👎 ❤ 🔥 👀 🎉 🙏 👌).",
    parameters: Type.Object({
      emoji: Type.String({ description: "One emoji." }),
      message_id: Type.Optional(Type.String({ description: "The message's id; default: the person's latest message." })),
    }),
    async execute(_id, params) {
      if (!s) throw new Error("no chat session");
      const id = await s.react(params.emoji, params.message_id);
      return { content: [{ type: "text", text: `reacted ${params.emoji} on ${id}` }], details: { messageId: id } };
    },
  });
}

/** /new, /reload and /compact as the thread asks for them, with a command context. */
async function runSessionCommand(verb: string, ctx: ExtensionCommandContext): Promise<void> {
  switch (verb) {
    case "compact":
      ctx.compact({ onError: (e) => ctx.ui.notify(`compaction failed: ${e.message}`, "error") });
      return;
    case "new":
    case "reload":
      // A person who asks from the thread while pi works wants it now.
      if (!ctx.isIdle()) {
        ctx.abort();
        await ctx.waitForIdle();
      }
      if (verb === "new") await ctx.newSession();
      else await ctx.reload();
      return;
  }
  ctx.ui.notify(`/chatbus ${verb}: unknown (status, new, reload, compact)`, "warning");
}

class Session {
  private settings: Settings | undefined;
  private state: StateDir | undefined;
  private profileKey = "";
  private client: Client | undefined;
  private follower: Follower | undefined;
  private connecting: Promise<void> | undefined;
  private readonly stopped = new AbortController();
  private readonly acks = new AckTracker();
  private acking: Promise<void> | undefined;
  private ackWanted: bigint | undefined;
  private readonly given: Given[] = [];
  private readonly relay: PromptRelay;
  private uninstallRelay: (() => void) | undefined;
  private verbs = new Set<string>();
  private answer: AnswerStream | undefined;
  private trace: AnswerStream | undefined;
  private traceLines: string[] = [];
  private readonly closing = new Set<Promise<void>>();
  private typingTimer: NodeJS.Timeout | undefined;
  private runFromChat = false;
  private busy = false;
  private lastPersonMessage = "";
  private why = "connecting";

  constructor(
    private readonly pi: ExtensionAPI,
    private readonly ctx: ExtensionContext,
    private readonly reason: string,
    private readonly host: Host,
  ) {
    this.relay = new PromptRelay({
      ready: () => this.follower !== undefined && this.verbs.has("send") && !this.stopped.signal.aborted,
      post: async (text, buttons) => {
        const ids = await this.mustFollower().send(text, { buttons, prompt: true });
        return ids[ids.length - 1] ?? "";
      },
      settle: (id, text) => this.mustFollower().edit(id, text),
      notify: (text) => this.ctx.ui.notify(text, "info"),
      onError: (e) => this.log(`prompt: ${errText(e)}`),
    });
  }

  start(): void {
    try {
      this.settings = loadSettings(this.host.getAgentDir());
    } catch (e) {
      this.why = `settings: ${errText(e)}`;
      this.ctx.ui.notify(`chatbus: ${this.why}`, "error");
      return;
    }
    this.state = new StateDir(this.settings.stateDir);
    if (this.settings.prompts && this.ctx.hasUI) this.uninstallRelay = this.relay.install(this.ctx.ui);
    this.connecting = this.connect().catch((e) => {
      this.why = errText(e);
      this.log(`not connected: ${this.why}`);
      this.ctx.ui.setStatus("chatbus", "💬 chatbus: not connected");
      this.ctx.ui.notify(`chatbus: ${this.why}`, "warning");
    });
  }

  status(): string {
    const t = this.follower?.target;
    if (!this.follower || !t) return `chatbus: ${this.why}`;
    return `chatbus: thread "${this.follower.binding?.threadName ?? ""}" on ${t.provider} (profile key ${this.profileKey})`;
  }

  private log(line: string): void {
    this.state?.log(`[${this.profileKey || "?"}] ${line}`);
  }

  private mustFollower(): Follower {
    if (!this.follower) throw new Error(`chatbus is not connected: ${this.why}`);
    return this.follower;
  }

  private chooseKey(): string {
    const s = this.settings!;
    const sessionId = this.ctx.sessionManager.getSessionId();
    const carry = carried[CARRY];
    carried[CARRY] = undefined;
    let key = s.profileKey || carry?.profileKey || this.state!.sessionKey(sessionId) || `pi:${sessionId}`;
    if (!s.profileKey && key !== `pi:${sessionId}`) this.state!.setSessionKey(sessionId, key);
    return key;
  }

  private async connect(): Promise<void> {
    const s = this.settings!;
    this.profileKey = this.chooseKey();
    this.client = await dial(s, (l) => this.log(l));
    await this.registerOnce();
    void this.loop();
  }

  // Registers with the profile key's handoff token, if one was left.
  private async registerOnce(): Promise<void> {
    const s = this.settings!;
    const handoff = this.state!.takeHandoff(this.profileKey);
    const f = await register(
      this.client!,
      { profileKey: this.profileKey, threadName: s.threadName, provider: s.provider, cwd: this.ctx.cwd, handoffToken: handoff?.token, launchId: process.env.CHATBUS_LAUNCH_ID },
      (l) => this.log(l),
    );
    if (this.stopped.signal.aborted) {
      // Shut down meanwhile: hand it on at once.
      this.follower = f;
      return;
    }
    this.follower = f;
    this.verbs = new Set(f.capabilities?.verbs ?? []);
    const thread = f.binding?.threadName ?? "";
    const t = f.target;
    this.why = t ? "connected" : "the supervisor has no chat provider: no thread";
    this.log(`registered (${this.reason}): ${originName(f.origin)} ${t ? `${t.provider} chat ${t.chat} thread ${t.thread} "${thread}"` : "detached"}`);
    this.ctx.ui.setStatus("chatbus", t ? `💬 ${thread} (${t.provider})` : "💬 chatbus: no thread");
  }

  // The update loop: one stream at a time, resumed after a break (the
  // supervisor restarted, the connection dropped) until the session ends.
  private async loop(): Promise<void> {
    let wait = 250;
    while (!this.stopped.signal.aborted) {
      const f = this.follower!;
      try {
        for await (const u of f.updates({ signal: this.stopped.signal })) {
          wait = 250;
          await this.handle(u);
        }
        if (this.stopped.signal.aborted) return;
      } catch (e) {
        if (this.stopped.signal.aborted) return;
        if (e instanceof TakenOverError || e instanceof SuspendedError || (e instanceof ReplacedError && !f.alive)) {
          this.why = `the thread went to another session: ${errText(e)}`;
          this.log(this.why);
          this.ctx.ui.setStatus("chatbus", "💬 chatbus: thread taken over");
          this.follower = undefined;
          return;
        }
        this.log(`update stream ended (${errText(e)}); resuming in ${wait} ms`);
      }
      await sleep(wait, this.stopped.signal);
      wait = Math.min(wait * 2, 5000);
      if (this.stopped.signal.aborted) return;
      if (!f.alive) {
        // The session is gone (pruned, the supervisor gone for good):
        // start it again if allowed, and register by the profile key.
        try {
          this.client?.close();
          this.client = await dial(this.settings!, (l) => this.log(l));
          await this.registerOnce();
        } catch (err) {
          if (!(err instanceof UnavailableError)) this.log(`registering again: ${errText(err)}`);
        }
      }
    }
  }

  // One update, in order. It is acknowledged once pi has it (see ack()).
  private async handle(u: types.Update): Promise<void> {
    if (this.given.some((g) => g.seq === u.seq)) return; // with pi already (a resumed stream)
    this.acks.arrived(u.seq);
    const what = classify(u);
    const f = this.follower!;
    switch (what.kind) {
      case "ignore":
        this.done(u.seq);
        return;
      case "press": {
        let note = "";
        if (what.data === STOP_DATA) {
          note = this.ctx.isIdle() ? "Nothing runs." : "Stopping.";
          this.ctx.abort();
        } else if (PromptRelay.isPress(what.data)) {
          note = this.relay.press(what.data);
        }
        if (what.interaction && this.verbs.has("answer")) {
          await f.answer(what.interaction, note).catch((e) => this.log(`answering a press: ${errText(e)}`));
        }
        this.done(u.seq);
        return;
      }
      case "command":
        this.done(u.seq);
        await this.command(what.name, what.args, what.text);
        return;
      case "message":
        await this.give(u, what.text, what.fileIds, what.edited);
        if (what.messageId) this.lastPersonMessage = what.messageId;
        return;
    }
  }

  // A command typed in the thread. Acknowledged before it runs: /new and
  // /reload end this runtime.
  private async command(name: string, args: string, text: string): Promise<void> {
    if (STOP_COMMANDS.has(name)) {
      this.ctx.abort();
      return;
    }
    if (SESSION_COMMANDS.has(name)) {
      this.log(`/${name} from the thread`);
      this.pi.sendUserMessage(`/chatbus ${name}`, { expandPromptTemplates: true });
      return;
    }
    const known = this.pi.getCommands().some((c) => c.name === name);
    if (known) {
      // An extension command, a prompt template or a skill.
      this.pi.sendUserMessage(text, { expandPromptTemplates: true, deliverAs: this.settings!.busy });
      this.runFromChat = true;
      return;
    }
    await this.follower!.send(
      `pi has no command \`/${escapeMarkdown(name)}\` it can run from here: in the thread, /stop, /new, /reload, /compact, ` +
        "and the commands of extensions, prompt templates and skills work; the terminal's own (/model, /settings, …) work at the terminal.",
    ).catch((e) => this.log(`answering /${name}: ${errText(e)}`));
    void args;
  }

  // A person's message: given to pi as a user message (a new turn when
  // idle, else steered in or followed up), its files downloaded first.
  private async give(u: types.Update, text: string, fileIds: string[], edited: boolean): Promise<void> {
    const notes: string[] = [];
    const images: { type: "image"; data: string; mimeType: string }[] = [];
    for (const [i, id] of fileIds.entries()) {
      if (i === MAX_FILES) {
        notes.push(`[${fileIds.length - i} more files not downloaded]`);
        break;
      }
      try {
        const d = await download(this.client!, this.follower!, id, this.state!.inbox(this.profileKey), `${u.seq}-${i}`);
        if (d.image) images.push(d.image);
        notes.push(`[${d.image ? "photo" : "file"}: ${d.path}]`);
      } catch (e) {
        if (this.stopped.signal.aborted) return; // leave it for the successor, files and all
        this.log(`downloading ${id}: ${errText(e)}`);
        notes.push(`[a file could not be downloaded: ${errText(e)}]`);
      }
    }
    let body = (edited ? "(edited) " : "") + text;
    if (notes.length) body = (body ? body + "\n\n" : "") + notes.join("\n");
    this.given.push({ seq: u.seq, text: body, at: Date.now() });
    this.runFromChat = true;
    this.startTyping();
    const content = images.length ? [{ type: "text" as const, text: body }, ...images] : body;
    this.pi.sendUserMessage(content, { deliverAs: this.settings!.busy });
    this.log(`seq ${u.seq} given to pi${this.busy ? ` (${this.settings!.busy})` : ""}`);
  }

  // Marks an update done and acks what that allows.
  private done(seq: bigint): void {
    const through = this.acks.complete(seq);
    if (through === undefined) return;
    this.ackWanted = through;
    this.acking ??= this.flushAcks().finally(() => (this.acking = undefined));
  }

  private async flushAcks(): Promise<void> {
    while (this.ackWanted !== undefined && this.follower) {
      const seq = this.ackWanted;
      this.ackWanted = undefined;
      try {
        await this.follower.ack(seq);
      } catch (e) {
        this.log(`ack ${seq}: ${errText(e)}`);
      }
    }
  }

  // pi's events.

  agentStart(): void {
    this.busy = true;
    this.startTyping();
  }

  agentSettled(): void {
    this.busy = false;
    this.stopTyping();
    // What pi had of the thread is now in the session, or was dropped at
    // the terminal (an abort that cleared its queue): done either way.
    const now = Date.now();
    for (const g of this.given.splice(0).filter((g) => g.at <= now)) this.done(g.seq);
    if (this.trace) this.finishing(this.trace.finish());
    this.trace = undefined;
    this.traceLines = [];
    this.runFromChat = false;
  }

  messageStart(m: unknown): void {
    if (role(m) !== "assistant" || !this.follower || !this.verbs.has("send")) return;
    if (this.settings!.answers === "chat" && !this.runFromChat) return;
    if (this.answer) this.finishing(this.answer.finish());
    this.answer = this.newStream([STOP_BUTTON]);
  }

  messageUpdate(m: unknown): void {
    if (role(m) !== "assistant" || !this.answer) return;
    this.answer.update(textOf(m));
  }

  messageEnd(m: unknown): void {
    const r = role(m);
    if (r === "user") {
      // pi has the message in the session: it is done.
      const text = textOf(m);
      const i = this.given.findIndex((g) => g.text === text);
      if (i >= 0) this.done(this.given.splice(i, 1)[0].seq);
      return;
    }
    if (r !== "assistant" || !this.answer) return;
    let text = textOf(m);
    const stop = (m as { stopReason?: string }).stopReason;
    if (stop === "aborted" && text.trim()) text += "\n\n_⏹ stopped_";
    if (stop === "error" && text.trim()) text += "\n\n_⚠ the model's answer broke off_";
    this.finishing(this.answer.finish(text));
    this.answer = undefined;
  }

  toolStart(name: string, args: unknown): void {
    const n = this.settings?.trace ?? 0;
    if (n === 0 || !this.follower || !this.verbs.has("send")) return;
    if (this.settings!.answers === "chat" && !this.runFromChat) return;
    this.traceLines.push(`🔧 \`${name.replace(/`/g, "")}\` ${escapeMarkdown(oneLine(name, args))}`);
    this.traceLines = this.traceLines.slice(-n);
    this.trace ??= this.newStream([STOP_BUTTON]);
    this.trace.update(this.traceLines.join("\n"));
  }

  private newStream(buttons: StreamButton[]): AnswerStream {
    return new AnswerStream(
      {
        stream: (id, text, final, b) => this.mustFollower().stream(id, text, { final, buttons: b }),
      },
      {
        intervalMs: this.settings!.editIntervalMs,
        buttons: this.verbs.has("answer") ? buttons : [],
        onError: (e) => this.log(`streaming into the thread: ${errText(e)}`),
      },
    );
  }

  private finishing(p: Promise<void>): void {
    this.closing.add(p);
    void p.finally(() => this.closing.delete(p));
  }

  private startTyping(): void {
    if (!this.settings?.typing || !this.verbs.has("typing") || this.typingTimer) return;
    const beat = () => void this.follower?.typing().catch(() => {});
    beat();
    this.typingTimer = setInterval(beat, TYPING_EVERY_MS);
  }

  private stopTyping(): void {
    clearInterval(this.typingTimer);
    this.typingTimer = undefined;
  }

  // The model's tools.

  async reply(text: string, files: string[]): Promise<string[]> {
    const f = this.mustFollower();
    if (!text.trim() && files.length === 0) throw new Error("reply: text and files are empty");
    for (const file of files) this.sendable(file);
    const ids: string[] = [];
    if (text.trim()) ids.push(...(await f.send(text)));
    for (const file of files) {
      const photo = /\.(jpe?g|png|gif|webp)$/i.test(file);
      const res = (await f.uploadFile(file, { kind: photo ? "photo" : "document" })) as { message_id?: unknown } | undefined;
      ids.push(String(res?.message_id ?? "?"));
    }
    return ids;
  }

  async react(emoji: string, messageId?: string): Promise<string> {
    const f = this.mustFollower();
    if (!this.verbs.has("react")) throw new Error("this chat platform has no reactions");
    const id = messageId || this.lastPersonMessage;
    if (!id) throw new Error("no message to react to: the person has written nothing here yet");
    await f.react(id, emoji);
    return id;
  }

  // Refuses what reply must not send: relative paths, what is not a
  // regular file, files over 50 MB, and chatbus's state (the supervisor's
  // secret lives there) except the inbox of received files.
  private sendable(file: string): void {
    if (!path.isAbsolute(file)) throw new Error(`${file}: not an absolute path`);
    const real = fs.realpathSync(file);
    const st = fs.statSync(real);
    if (!st.isFile()) throw new Error(`${file}: not a regular file`);
    if (st.size > 50 << 20) throw new Error(`${file}: ${st.size} bytes, more than a message may carry (50 MB)`);
    let state: string;
    try {
      state = fs.realpathSync(this.settings!.stateDir);
    } catch {
      return;
    }
    let inbox = "";
    try {
      inbox = fs.realpathSync(this.state!.inbox(this.profileKey));
    } catch {
      // no inbox yet
    }
    if (within(real, state) && !(inbox && within(real, inbox))) throw new Error(`${file}: refusing to send chatbus's own state`);
  }

  // The end of the runtime: the thread is held for the next one (a
  // /reload, a session switch, pi --continue after a quit).
  async shutdown(reason: string): Promise<void> {
    this.stopped.abort();
    this.stopTyping();
    this.uninstallRelay?.();
    const deadline = Date.now() + SHUTDOWN_MS;
    const within_ = <T>(p: Promise<T>) => Promise.race([p, sleep(Math.max(deadline - Date.now(), 0))]);
    if (this.connecting) await within_(this.connecting);
    if (this.answer) this.finishing(this.answer.finish());
    if (this.trace) this.finishing(this.trace.finish());
    await within_(Promise.all([...this.closing]));
    if (this.acking) await within_(this.acking);
    if (reason !== "quit") carried[CARRY] = { profileKey: this.profileKey };
    const f = this.follower;
    if (f && this.profileKey) {
      try {
        const h = await within_(f.suspend());
        if (h) {
          this.state!.writeHandoff({
            profileKey: this.profileKey,
            token: h.handoffToken,
            expiresAt: h.expiresAt ? Number(h.expiresAt.seconds) * 1000 + Math.floor(h.expiresAt.nanos / 1e6) : Date.now() + 30_000,
            thread: f.binding?.threadName,
          });
          this.log(`suspended for the next session (${reason})`);
        }
      } catch (e) {
        this.log(`suspend (${reason}): ${errText(e)}; the next session finds the thread by its profile key`);
      }
      await within_(f.close().catch(() => {}));
    }
    this.client?.close();
  }
}

function role(m: unknown): string {
  return (m as { role?: string })?.role ?? "";
}

/** The text of a message: its text parts, joined. */
function textOf(m: unknown): string {
  const c = (m as { content?: unknown }).content;
  if (typeof c === "string") return c;
  if (!Array.isArray(c)) return "";
  return c
    .filter((p): p is { type: "text"; text: string } => p?.type === "text" && typeof p.text === "string")
    .map((p) => p.text)
    .join("");
}

/** A tool call's argument in one short line: the command, the path, or the arguments as JSON. */
function oneLine(tool: string, args: unknown): string {
  const a = (args ?? {}) as Record<string, unknown>;
  let s: string;
  if (typeof a.command === "string") s = a.command;
  else if (typeof a.path === "string") s = a.path;
  else if (typeof a.pattern === "string") s = a.pattern;
  else s = JSON.stringify(args) ?? "";
  s = s.replace(/\s+/g, " ").trim();
  void tool;
  return s.length > 80 ? s.slice(0, 79) + "…" : s;
}

function within(file: string, dir: string): boolean {
  const rel = path.relative(dir, file);
  return rel !== "" && !rel.startsWith("..") && !path.isAbsolute(rel);
}

function errText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}
