// The TypeScript follower client against a real supervisord.
//
// "follower client against supervisord": no provider is configured, so
// followers register ORIGIN_DETACHED: their streams stay open and carry
// nothing, Call answers FAILED_PRECONDITION and Ack INVALID_ARGUMENT.
//
// "routed through a provider": the supervisor runs
// clients/testdata/provider-fake (a provider child in Python whose platform
// is a directory): register binds a fresh thread, a message pushed into it
// arrives on updates(), is acknowledged and replayed until it is,
// sendMessage lands in that thread, files go up into it and come down from
// it (only its own), and the echo example echoes end to end.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, describe, it } from "node:test";

import {
  Client,
  Code,
  ConnectError,
  Follower,
  NotRunningError,
  PermissionDeniedError,
  ReplacedError,
  SessionUnknownError,
  checkSocketPath,
  connect,
  defaultPaths,
  doctor,
  types,
} from "../src/index.js";
import type { Update } from "../src/gen/chatbus/v1/types_pb.js";
import * as fs from "node:fs";

import {
  FAKE_CHAT_ID,
  FakePlatform,
  Supervisor,
  TS_ROOT,
  eventually,
  fakeProviderSkip,
  fakeProviderYaml,
  sleep,
  supervisordBinary,
} from "./harness.js";

const HEARTBEAT_MS = 200;
const STALE_AFTER_MS = 2000;
// While an update stream is open; such a follower is pruned after
// 2 * SUBSCRIBED_MS + STALE_AFTER_MS of silence.
const SUBSCRIBED_MS = 1500;

const bin = supervisordBinary();

const newId = () => `test:${randomBytes(6).toString("hex")}`;

function hasCode(code: Code) {
  return (e: unknown) => {
    assert.ok(e instanceof ConnectError, `not a ConnectError: ${e}`);
    assert.equal(e.code, code, `code ${Code[e.code]}, want ${Code[code]}: ${e.message}`);
    return true;
  };
}

/** Iterates an update stream in the background, recording what happens. */
function read(stream: AsyncIterable<Update>) {
  const r = { updates: [] as Update[], error: undefined as unknown, ended: false, done: Promise.resolve() };
  r.done = (async () => {
    try {
      for await (const u of stream) r.updates.push(u);
    } catch (e) {
      r.error = e;
    } finally {
      r.ended = true;
    }
  })();
  return r;
}

async function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms}ms: ${what}`)), ms);
  });
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

describe("follower client against supervisord", { skip: bin.skip, timeout: 60_000 }, () => {
  let sup: Supervisor;
  let client: Client;
  const followers: Follower[] = [];

  before(async () => {
    sup = await Supervisor.start(bin.path!, {
      extraArgs: [
        "--heartbeat-interval",
        `${HEARTBEAT_MS}ms`,
        "--stale-after",
        `${STALE_AFTER_MS}ms`,
        "--subscribed-heartbeat-interval",
        `${SUBSCRIBED_MS}ms`,
      ],
    });
    client = await sup.client();
  });

  after(async () => {
    for (const f of followers) await f.close().catch(() => {});
    client?.close();
    await sup?.stop();
  });

  async function register(opts: Partial<Parameters<Client["register"]>[0]> = {}): Promise<Follower> {
    const f = await client.register({ profileKey: "manual:test", instanceId: newId(), ...opts });
    followers.push(f);
    return f;
  }

  async function listed(instanceId: string) {
    return (await client.listFollowers()).find((f) => f.instanceId === instanceId);
  }

  it("register returns the session, DETACHED origin and the timing contract", async () => {
    const id = newId();
    const f = await register({ instanceId: id, threadName: "ts-register" });
    assert.equal(f.session.instanceId, id);
    assert.ok(f.session.token.length >= 16);
    assert.equal(f.origin, types.Origin.DETACHED);
    assert.equal(f.binding, undefined);
    assert.equal(f.heartbeatIntervalMs, HEARTBEAT_MS);
    assert.equal(f.staleAfterMs, STALE_AFTER_MS);
    assert.ok(f.alive);
  });

  it("defaults instance id, pid and cwd", async () => {
    const f = await client.register({ profileKey: "manual:defaults" });
    try {
      assert.match(f.instanceId, /^\d+:\d+$/);
      assert.equal(f.instanceId.split(":")[0], String(process.pid));
      const row = await listed(f.instanceId);
      assert.equal(row?.pid, process.pid);
      assert.equal(row?.cwd, process.cwd());
      assert.equal(row?.threadName, path.basename(process.cwd()));
    } finally {
      await f.close();
    }
  });

  it("heartbeats in the background past stale_after", async () => {
    const f = await register();
    await sleep(STALE_AFTER_MS + 600);
    const row = await listed(f.instanceId);
    assert.ok(row, "pruned although the client heartbeats");
    const ageMs = Date.now() - Number(row.lastHeartbeat!.seconds) * 1000 - row.lastHeartbeat!.nanos / 1e6;
    assert.ok(ageMs < 1000, `last heartbeat ${ageMs}ms ago`);
    assert.ok(f.alive);
    assert.equal(f.error, undefined);
    const hb = await f.heartbeat();
    assert.ok(Math.abs(Date.now() - Number(hb.serverTime!.seconds) * 1000) < 5000);
    assert.deepEqual(hb.notices, []);
  });

  it("heartbeats at the subscribed interval while its stream is open", async () => {
    const f = await register();
    assert.equal(f.subscribedHeartbeatIntervalMs, SUBSCRIBED_MS);
    const ac = new AbortController();
    const reading = (async () => {
      for await (const _ of f.updates({ signal: ac.signal })) {
        /* nothing arrives */
      }
    })();
    const deadline = Date.now() + 10_000;
    while (!(await listed(f.instanceId))?.subscribed) {
      assert.ok(Date.now() < deadline, "the stream never opened");
      await sleep(50);
    }
    // Past stale_after with the stream open: kept, and at most 3 distinct
    // heartbeat times in the window (13 at the short interval).
    const seen = new Set<string>();
    const end = Date.now() + STALE_AFTER_MS + 600;
    while (Date.now() < end) {
      const row = await listed(f.instanceId);
      assert.ok(row, "pruned with its stream open");
      seen.add(`${row.lastHeartbeat!.seconds}.${row.lastHeartbeat!.nanos}`);
      await sleep(100);
    }
    assert.ok(seen.size <= 3, `${seen.size} heartbeat times with the stream open`);
    ac.abort();
    await reading;
    // The stream ended: heartbeats at the short interval again.
    const end2 = Date.now() + STALE_AFTER_MS + 600;
    let row;
    while (Date.now() < end2) {
      row = await listed(f.instanceId);
      assert.ok(row, "pruned after its stream ended");
      await sleep(100);
    }
    const ageMs = Date.now() - Number(row!.lastHeartbeat!.seconds) * 1000 - row!.lastHeartbeat!.nanos / 1e6;
    assert.ok(ageMs < 1000, `last heartbeat ${ageMs}ms ago`);
    assert.ok(f.alive);
  });

  it("AdminService shows the follower", async () => {
    const f = await register({ profileKey: "manual:admin", threadName: "ts-admin", cwd: "/somewhere/else" });
    const info = await client.getInfo();
    assert.equal(info.socketPath, sup.socket);
    assert.equal(info.stateDir, sup.stateDir);
    assert.equal(info.pid, sup.proc.pid);
    assert.equal(info.profile, "default");
    assert.ok(info.followerCount >= 1);
    const row = await listed(f.instanceId);
    assert.ok(row);
    assert.equal(row.profileKey, "manual:admin");
    assert.equal(row.threadName, "ts-admin");
    assert.equal(row.cwd, "/somewhere/else");
    assert.equal(row.pid, process.pid);
    assert.equal(row.origin, types.Origin.DETACHED);
    assert.equal(row.subscribed, false);
    const ac = new AbortController();
    const r = read(f.updates({ signal: ac.signal }));
    await eventually(async () => (await listed(f.instanceId))?.subscribed, "subscribed=true");
    ac.abort();
    await within(r.done, 3000, "abort ends the stream");
  });

  it("the stream stays open until unregister ends it", async () => {
    const f = await register();
    const r = read(f.updates());
    await eventually(async () => (await listed(f.instanceId))?.subscribed, "subscribed=true");
    await sleep(500);
    assert.equal(r.ended, false, `stream ended early: ${r.error}`);
    await f.close();
    await within(r.done, 3000, "unregister ends the stream");
    assert.equal(r.error, undefined);
    assert.deepEqual(r.updates, []);
    assert.equal(await listed(f.instanceId), undefined);
    assert.equal(f.alive, false);
    assert.equal(f.error, undefined);
    await f.close(); // idempotent
  });

  it("aborting the stream ends it cleanly and keeps the session", async () => {
    const f = await register();
    const ac = new AbortController();
    const r = read(f.updates({ signal: ac.signal }));
    await eventually(async () => (await listed(f.instanceId))?.subscribed, "subscribed=true");
    ac.abort();
    await within(r.done, 3000, "abort ends the iteration");
    assert.equal(r.error, undefined);
    await eventually(async () => (await listed(f.instanceId))?.subscribed === false, "subscribed=false");
    assert.ok(f.alive);
    await f.heartbeat();
  });

  it("a second Subscribe supersedes the first (ABORTED)", async () => {
    const f = await register();
    const first = read(f.updates());
    await eventually(async () => (await listed(f.instanceId))?.subscribed, "subscribed=true");
    const ac = new AbortController();
    const second = read(f.updates({ signal: ac.signal }));
    await within(first.done, 3000, "first stream ends");
    hasCode(Code.Aborted)(first.error);
    ac.abort();
    await within(second.done, 3000, "second stream ends");
  });

  it("Call without a thread is FAILED_PRECONDITION", async () => {
    const f = await register();
    await assert.rejects(f.call("sendMessage", { text: "hello" }, { idempotencyKey: "k1" }), (e) => {
      hasCode(Code.FailedPrecondition)(e);
      assert.match((e as ConnectError).rawMessage, /not bound/);
      return true;
    });
  });

  it("Ack of nothing delivered is INVALID_ARGUMENT", async () => {
    const f = await register();
    await assert.rejects(f.ack(1n), (e) => {
      hasCode(Code.InvalidArgument)(e);
      assert.match((e as ConnectError).rawMessage, /never delivered/);
      return true;
    });
    await assert.rejects(f.ack(0), hasCode(Code.InvalidArgument)); // protovalidate: seq > 0
  });

  it("a wrong secret is UNAUTHENTICATED", async () => {
    const bad = await sup.client({ secret: "not-the-secret" });
    try {
      await assert.rejects(bad.register({ profileKey: "manual:intruder", instanceId: newId() }), hasCode(Code.Unauthenticated));
      await assert.rejects(bad.getInfo(), hasCode(Code.Unauthenticated));
      await assert.rejects(bad.listFollowers(), hasCode(Code.Unauthenticated));
    } finally {
      bad.close();
    }
  });

  it("invalid registrations are INVALID_ARGUMENT", async () => {
    await assert.rejects(client.register({ profileKey: "", instanceId: newId() }), hasCode(Code.InvalidArgument));
    await assert.rejects(client.register({ profileKey: "manual:x", instanceId: "bad id" }), hasCode(Code.InvalidArgument));
  });

  it("sessions are not interchangeable", async () => {
    const a = await register();
    const b = await register();
    await assert.rejects(
      client.bus.heartbeat({ session: { instanceId: a.instanceId, token: b.session.token } }),
      hasCode(Code.PermissionDenied),
    );
    await assert.rejects(
      client.bus.heartbeat({ session: { instanceId: newId(), token: "x".repeat(32) } }),
      hasCode(Code.NotFound),
    );
  });

  it("re-registering the instance id ends the old session", async () => {
    const id = newId();
    const old = await register({ instanceId: id });
    const r = read(old.updates());
    await eventually(async () => (await listed(id))?.subscribed, "subscribed=true");
    const fresh = await register({ instanceId: id });
    await within(r.done, 3000, "old stream ends");
    hasCode(Code.Aborted)(r.error);
    // The session is given up: its stream said "replaced", or its heartbeat
    // found the token dead (the same supervisor: no renewal).
    await within(old.done, 3000, "old follower gives up");
    assert.equal(old.alive, false);
    assert.ok(old.error instanceof ReplacedError || old.error instanceof SessionUnknownError, `lost with ${old.error?.message}`);
    await old.close(); // no error: the session is gone already
    assert.ok(fresh.alive);
    await fresh.heartbeat();
  });

  it("a silent follower is pruned (stream ends FAILED_PRECONDITION)", async () => {
    // Raw client: no background heartbeat.
    const resp = await client.bus.register({ instanceId: newId(), profileKey: "manual:silent", pid: process.pid });
    const t0 = Date.now();
    await assert.rejects(
      (async () => {
        for await (const _ of client.bus.subscribe({ session: resp.session })) {
          /* nothing arrives */
        }
      })(),
      hasCode(Code.FailedPrecondition),
    );
    // Its stream is open: the silence allowed is the subscribed one.
    assert.ok(Date.now() - t0 < 2 * SUBSCRIBED_MS + STALE_AFTER_MS + 2000);
    assert.equal(await listed(resp.session!.instanceId), undefined);
  });

  it("the echo example registers, subscribes and stops cleanly on SIGTERM", async () => {
    const example = path.join(TS_ROOT, "dist", "examples", "echo-follower.js");
    const proc = spawn(process.execPath, [example, "--profile-key", "manual:echo-ts"], {
      env: { ...process.env, CHATBUS_SOCKET: sup.socket, CHATBUS_SECRET_FILE: sup.secretFile },
      stdio: ["ignore", "inherit", "pipe"],
    });
    let stderr = "";
    proc.stderr!.on("data", (d) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => proc.once("exit", (code) => resolve(code)));
    try {
      const row = await eventually(
        async () => (await client.listFollowers()).find((f) => f.pid === proc.pid && f.subscribed),
        "the example to register and subscribe",
        10_000,
      );
      assert.equal(row.profileKey, "manual:echo-ts");
      proc.kill("SIGTERM");
      assert.equal(await within(exited, 10_000, "example exits"), 0, stderr);
      assert.match(stderr, /ORIGIN_DETACHED/);
      assert.equal(await listed(row.instanceId), undefined, "the example did not unregister");
    } finally {
      if (proc.exitCode === null) proc.kill("SIGKILL");
    }
  });
});

/** The first update of a fresh stream; the stream is then ended. */
async function firstUpdates(f: Follower, n: number): Promise<Update[]> {
  const ac = new AbortController();
  const got: Update[] = [];
  try {
    for await (const u of f.updates({ signal: ac.signal })) {
      got.push(u);
      if (got.length === n) return got;
    }
    throw new Error(`stream ended after ${got.length} of ${n} updates`);
  } finally {
    ac.abort();
  }
}

async function firstUpdate(f: Follower): Promise<Update> {
  const ac = new AbortController();
  try {
    for await (const u of f.updates({ signal: ac.signal })) return u;
    throw new Error("stream ended without an update");
  } finally {
    ac.abort();
  }
}

describe("routed through a provider (provider-fake)", { skip: bin.skip ?? fakeProviderSkip(), timeout: 60_000 }, () => {
  let sup: Supervisor;
  let client: Client;
  let platform: FakePlatform;
  const followers: Follower[] = [];

  before(async () => {
    platform = new FakePlatform(fs.mkdtempSync("/tmp/cb-fake-"));
    sup = await Supervisor.start(bin.path!, {
      extraArgs: ["--heartbeat-interval", `${HEARTBEAT_MS}ms`],
      configYaml: fakeProviderYaml(platform.dir),
    });
    await sup.waitProvider("fake");
    client = await sup.client();
  });

  after(async () => {
    for (const f of followers) await f.close().catch(() => {});
    client?.close();
    await sup?.stop();
    if (platform) fs.rmSync(platform.dir, { recursive: true, force: true });
  });

  async function register(profileKey: string, cwd: string): Promise<Follower> {
    const f = await client.register({ profileKey, cwd, instanceId: newId() });
    followers.push(f);
    return f;
  }

  // The call that sent text into the thread: a sendMessage, or the send verb.
  const sent = (thread: bigint, text: string) =>
    platform
      .calls()
      .find(
        (c) =>
          c.params.text === text &&
          ((c.method === "sendMessage" && c.params.message_thread_id === Number(thread)) ||
            (c.method === "send" && c.thread === String(thread))),
      );

  it("the message verbs: send with buttons, a press answered, edit, react, typing", async () => {
    const f = await register("manual:verbs-ts", "/home/u/verbs");
    const thread = f.binding!.target!.threadId;
    assert.deepEqual(f.capabilities?.verbs, ["send", "edit", "react", "typing", "answer"]);

    const buttons = [
      { label: "Red", data: "red" },
      { label: "Blue", data: "blue" },
    ];
    const ids = await f.send("**Which colour?**", { buttons, prompt: true, idempotencyKey: "ts-v1" });
    assert.equal(ids.length, 1);
    assert.deepEqual(await f.send("**Which colour?**", { buttons, prompt: true, idempotencyKey: "ts-v1" }), ids);
    const sends = platform.calls().filter((c) => c.method === "send" && c.idempotency_key === "ts-v1");
    assert.equal(sends.length, 1, JSON.stringify(platform.calls()));
    assert.equal(sends[0].thread, String(thread));
    assert.deepEqual(sends[0].params, { text: "**Which colour?**", buttons, prompt: true });
    const reply = await f.send("a reply", { replyTo: ids[0] });
    assert.equal(sent(thread, "a reply")?.params.reply_to, ids[0]);

    // A press arrives as a callback query naming the interaction.
    platform.pushMessage(thread, "blue", 4242, { message_id: Number(ids[0]), interaction: "press-ts" });
    const press = await within(firstUpdate(f), 10_000, "the press");
    assert.equal(press.kind, types.UpdateKind.CALLBACK_QUERY);
    assert.equal(press.text, "blue");
    assert.ok(press.references.some((r) => r.kind === types.ReferenceKind.INTERACTION && r.id === "press-ts"));
    await f.ack(press.seq);

    await f.answer("press-ts", "you chose blue", { idempotencyKey: "ts-answer" });
    await f.edit(ids[0], "picked _blue_");
    await f.react(reply[0], "👍");
    await f.typing();
    const made = new Map(platform.calls().filter((c) => c.thread === String(thread)).map((c) => [c.method, c]));
    assert.deepEqual(made.get("answer")?.params, { interaction_id: "press-ts", text: "you chose blue" });
    assert.equal(made.get("answer")?.idempotency_key, "ts-answer");
    assert.deepEqual(made.get("edit")?.params, { message_id: ids[0], text: "picked _blue_" });
    assert.deepEqual(made.get("react")?.params, { message_id: reply[0], emoji: "👍" });
    assert.deepEqual(made.get("typing")?.params, {});

    // The supervisor checks the ids against the thread.
    await assert.rejects(f.answer("press-never-seen"), (e) => {
      assert.ok(e instanceof PermissionDeniedError, String(e));
      assert.ok(e.idempotencyKey?.startsWith("ts:"));
      return true;
    });
    await assert.rejects(f.edit("999999", "not mine"), PermissionDeniedError);
  });

  it("a fresh thread: routed update, ack, sendMessage into the thread", async () => {
    const f = await register("manual:routed-ts", "/home/u/gamma");
    assert.equal(f.origin, types.Origin.FRESH);
    const target = f.binding!.target!;
    assert.equal(target.provider, "fake");
    assert.equal(target.chatId, FAKE_CHAT_ID);
    assert.equal(f.binding!.threadName, "gamma");
    assert.ok(platform.targets().some((t) => BigInt(t.thread_id) === target.threadId));

    platform.pushMessage(target.threadId, "hello");
    const u = await within(firstUpdate(f), 10_000, "the routed update");
    assert.equal(u.text, "hello");
    assert.equal(u.kind, types.UpdateKind.MESSAGE);
    assert.equal(u.target?.threadId, target.threadId);
    assert.ok(u.seq > 0n);
    assert.equal(await f.ack(u.seq), u.seq);

    const result = (await f.call("sendMessage", { text: "echo: hello" }, { idempotencyKey: "ts-k1" })) as { message_id: number };
    assert.ok(result.message_id > 0);
    const call = sent(target.threadId, "echo: hello");
    assert.ok(call, JSON.stringify(platform.calls()));
    assert.equal(call.params.chat_id, Number(FAKE_CHAT_ID)); // filled in by the supervisor
    assert.equal(call.idempotency_key, "ts-k1");
  });

  it("files: upload into the thread, download what the thread saw, nothing else", async () => {
    const f = await register("manual:files-ts", "/home/u/files");
    const thread = f.binding!.target!.threadId;
    const data = randomBytes(600 * 1024); // three chunks

    const sent = (await f.uploadFile(data, { filename: "notes.bin", caption: "the notes" })) as {
      document: { file_id: string };
    };
    const fileId = sent.document.file_id;
    const up = platform.uploads().filter((u) => u.file_id === fileId);
    assert.equal(up.length, 1, JSON.stringify(platform.uploads()));
    assert.deepEqual(
      [up[0].chat_id, up[0].thread_id, up[0].filename, up[0].caption, up[0].kind, up[0].size],
      [Number(FAKE_CHAT_ID), Number(thread), "notes.bin", "the notes", "document", data.length],
    );
    assert.ok(platform.file(fileId).equals(data));
    assert.ok(Buffer.from(await f.downloadFile(fileId)).equals(data)); // what the thread sent is in scope

    const tmp = path.join(platform.dir, "shot.png");
    fs.writeFileSync(tmp, "\x89PNG fake");
    const photo = (await f.uploadFile(tmp, { kind: "photo" })) as { photo: { file_id: string }[] };
    const last = platform.uploads().at(-1)!;
    assert.equal(last.filename, "shot.png");
    assert.equal(photo.photo[0].file_id, last.file_id);

    // A document a person sends into the thread: downloadable by its id.
    const inbound = randomBytes(100 * 1024);
    platform.putFile("from-a-person-ts", inbound);
    platform.putFile("elsewhere-ts", Buffer.from("not yours"));
    platform.pushMessage(thread, "see attached", 4242, { message_id: 900, document: { file_id: "from-a-person-ts" } });
    const u = await within(firstUpdate(f), 10_000, "the update with the document");
    assert.equal(u.text, "see attached");
    const chunks: Uint8Array[] = [];
    for await (const c of f.fileChunks("from-a-person-ts")) chunks.push(c);
    assert.ok(Buffer.concat(chunks).equals(inbound));
    // A file id the thread never saw is refused, though the platform has it.
    await assert.rejects(f.downloadFile("elsewhere-ts"), hasCode(Code.PermissionDenied));
  });

  it("an unacknowledged update is replayed", async () => {
    const f = await register("manual:replay-ts", "/home/u/delta");
    const thread = f.binding!.target!.threadId;
    platform.pushMessage(thread, "first");
    const first = await within(firstUpdate(f), 10_000, "first");
    assert.equal(first.text, "first");
    const again = await within(firstUpdate(f), 10_000, "replay");
    assert.deepEqual([again.seq, again.text], [first.seq, "first"]);
    await f.ack(first.seq);
    platform.pushMessage(thread, "second");
    const second = await within(firstUpdate(f), 10_000, "second");
    assert.equal(second.text, "second");
    assert.ok(second.seq > first.seq);
    await f.ack(second.seq);
  });

  it("a replayed batch comes one update at a time", async () => {
    // The client asks for batches (maxBatch): five held updates are replayed
    // in one stream message and handed out one by one, in order.
    const f = await register("manual:batch-ts", "/home/u/epsilon");
    const thread = f.binding!.target!.threadId;
    const texts = ["m0", "m1", "m2", "m3", "m4"];
    for (const t of texts) platform.pushMessage(thread, t);
    const live = await within(firstUpdates(f, 5), 10_000, "five live updates");
    assert.deepEqual(live.map((u) => u.text), texts);
    const replayed = await within(firstUpdates(f, 5), 10_000, "five replayed updates");
    assert.deepEqual(replayed.map((u) => [u.seq, u.text]), live.map((u) => [u.seq, u.text]));
    assert.deepEqual(replayed.map((u) => u.seq), [0n, 1n, 2n, 3n, 4n].map((i) => live[0].seq + i));
    await f.ack(replayed[4].seq);
  });

  it("the echo example echoes end to end", async () => {
    const example = path.join(TS_ROOT, "dist", "examples", "echo-follower.js");
    const proc = spawn(process.execPath, [example, "--profile-key", "manual:echo-routed-ts"], {
      env: { ...process.env, CHATBUS_SOCKET: sup.socket, CHATBUS_SECRET_FILE: sup.secretFile },
      stdio: ["ignore", "inherit", "pipe"],
    });
    let stderr = "";
    proc.stderr!.on("data", (d) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => proc.once("exit", (code) => resolve(code)));
    try {
      const row = await eventually(
        async () => (await client.listFollowers()).find((f) => f.pid === proc.pid && f.subscribed),
        "the example to register and subscribe",
        10_000,
      );
      assert.equal(row.origin, types.Origin.FRESH);
      const thread = row.binding!.target!.threadId;
      platform.pushMessage(thread, "ping from node");
      await eventually(() => sent(thread, "ping from node"), "the example to echo into its thread", 10_000);
      proc.kill("SIGTERM");
      assert.equal(await within(exited, 10_000, "example exits"), 0, stderr);
    } finally {
      if (proc.exitCode === null) proc.kill("SIGKILL");
    }
  });

  // Last: it replaces the provider child the tests above used.
  it("a doctor restart of the provider keeps the follower's thread", async () => {
    const [before] = await client.doctorStatus("fake");
    assert.ok(before.present);
    assert.equal(before.admitting, true);
    const f = await register("manual:doctor-ts", "/home/u/doctor");
    const thread = f.binding!.target!.threadId;

    const phases = new Set<doctor.RestartPhase>();
    const outcome = await client.doctorRestart("fake", {
      drainMs: 5000,
      deadlineMs: 30_000,
      onProgress: (p) => phases.add(p.phase),
    });
    assert.equal(outcome.kind, doctor.OutcomeKind.RESTARTED, outcome.message);
    assert.equal(outcome.old?.pid, before.pid);
    assert.notEqual(outcome.successor?.pid, before.pid);
    for (const want of [doctor.RestartPhase.PREPARE, doctor.RestartPhase.COMMIT, doctor.RestartPhase.EXIT_PROOF]) {
      assert.ok(phases.has(want), `no ${doctor.RestartPhase[want]} progress: ${[...phases]}`);
    }

    platform.pushMessage(thread, "after the restart");
    const u = await within(firstUpdate(f), 10_000, "an update through the successor");
    assert.equal(u.text, "after the restart");
    await f.call("sendMessage", { text: "still here (ts)" });
    const calls = platform.calls().filter((c) => c.params.text === "still here (ts)");
    assert.equal(calls.length, 1);
    assert.equal(calls[0].params.message_thread_id, Number(thread));
  });
});

describe("a supervisor that goes away", { skip: bin.skip, timeout: 60_000 }, () => {
  it("the session outlasts it until staleAfter, then ends", async () => {
    const staleAfterMs = 3000;
    const sup = await Supervisor.start(bin.path!, {
      extraArgs: ["--heartbeat-interval", "100ms", "--stale-after", `${staleAfterMs}ms`],
    });
    const client = await sup.client();
    try {
      const f = await client.register({ profileKey: "manual:gone", instanceId: newId() });
      const t0 = Date.now(); // a heartbeat got through within 100 ms before this
      await sup.stop();
      // Refused heartbeats are retried: the session is not given up while
      // the supervisor could still hold it.
      await sleep(Math.max(0, t0 + 1000 - Date.now()));
      assert.ok(Date.now() - t0 < staleAfterMs - 500, "supervisord took too long to stop");
      assert.ok(f.alive, `given up after ${Date.now() - t0} ms: ${f.error?.message}`);
      await within(f.done, staleAfterMs + 5000, "the follower gives up");
      assert.equal(f.alive, false);
      // connect-node reports a socket that is gone as INTERNAL (connect ENOENT).
      assert.ok(f.error !== undefined, "no error");
      assert.ok([Code.Unavailable, Code.Internal].includes(f.error.code), `ended with ${f.error.message}`);
    } finally {
      client.close();
      await sup.stop();
    }
  });
});

describe("connect and paths", () => {
  it("connect fails with NotRunningError when nothing listens", async () => {
    await assert.rejects(connect({ socket: "/tmp/chatbus-no-such-dir/s.sock", secret: "x" }), NotRunningError);
  });

  const cases = [
    {
      name: "xdg",
      env: { XDG_RUNTIME_DIR: "/run/user/7", XDG_STATE_HOME: "/st", HOME: "/h" },
      socket: "/run/user/7/chatbus/p/supervisor.sock",
      secret: "/st/chatbus/p/secret",
    },
    {
      name: "home",
      env: { HOME: "/h" },
      socket: "/h/.cache/chatbus/run/p/supervisor.sock",
      secret: "/h/.local/state/chatbus/p/secret",
    },
    {
      name: "nothing",
      env: {},
      socket: path.join(os.tmpdir(), "chatbus-7/p/supervisor.sock"),
      secret: path.join(os.tmpdir(), "chatbus-7/p/state/secret"),
    },
    {
      name: "macOS",
      platform: "darwin",
      env: { TMPDIR: "/var/folders/zz/abc/T/", HOME: "/Users/u" },
      socket: "/var/folders/zz/abc/T/chatbus/p/supervisor.sock",
      secret: "/Users/u/Library/Application Support/chatbus/p/secret",
    },
    {
      name: "macOS with XDG variables set",
      platform: "darwin",
      env: { XDG_RUNTIME_DIR: "/r", XDG_STATE_HOME: "/st", TMPDIR: "/var/folders/zz/abc/T/", HOME: "/Users/u" },
      socket: "/r/chatbus/p/supervisor.sock",
      secret: "/st/chatbus/p/secret",
    },
    {
      name: "macOS without TMPDIR",
      platform: "darwin",
      env: { HOME: "/Users/u" },
      socket: path.join(os.tmpdir(), "chatbus-7/p/supervisor.sock"),
      secret: "/Users/u/Library/Application Support/chatbus/p/secret",
    },
  ];
  for (const c of cases) {
    it(`default paths: ${c.name}`, () => {
      const p = defaultPaths("p", c.env, 7, c.platform ?? "linux");
      assert.equal(p.socket, c.socket);
      assert.equal(p.secretFile, c.secret);
    });
  }

  it("profile and socket path checks", () => {
    assert.equal(defaultPaths(undefined, { HOME: "/h" }, 7).profile, "default");
    assert.throws(() => defaultPaths("../etc", {}, 7));
    assert.equal(checkSocketPath("/a/b.sock"), "/a/b.sock");
    assert.ok(path.isAbsolute(checkSocketPath("rel.sock")));
    assert.throws(() => checkSocketPath("/" + "x".repeat(120)));
    const fits = (n: number) => "/" + "x".repeat(n - 1);
    assert.equal(checkSocketPath(fits(107), "linux"), fits(107));
    assert.throws(() => checkSocketPath(fits(108), "linux"), /108 bytes; Unix sockets allow at most 107/);
    assert.equal(checkSocketPath(fits(103), "darwin"), fits(103));
    assert.throws(() => checkSocketPath(fits(104), "darwin"), /104 bytes; Unix sockets allow at most 103/);
  });
});
