// Calls made at most once, error classes and the new fields, against a real
// supervisord running provider-fake.
//
// "outbound": a call repeated with one key is sent once and answers the
// same result (counted at the fake); a call without a key gets a fresh one,
// sent with it; a call the platform refuses as rate limited waits its turn
// again and goes through once; the platform's NOT_FOUND is a NotFoundError, not
// SessionUnknownError; suspend() ends the stream with SuspendedError; a
// takeover by profile key ends the old session with TakenOverError; updates
// carry sender, senderName, references and platform, the registration its
// capabilities and text ids.
//
// "across a supervisor restart": one logical call's first attempt is held
// by the supervisor (the fake refuses it as not admitting) when the
// supervisor is stopped; the client tries again with the same default key,
// registers again with the new supervisor, and gets the outcome of the one
// call the fake saw.

import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, afterEach, before, describe, it } from "node:test";

import {
  ChatbusError,
  Client,
  Code,
  ErrorReason,
  FailedPreconditionError,
  Follower,
  NotFoundError,
  ReplacedError,
  SessionUnknownError,
  SuspendedError,
  TakenOverError,
  toChatbusError,
  types,
} from "../src/index.js";
import type { Update } from "../src/gen/chatbus/v1/types_pb.js";

import { FAKE_CHAT_ID, FakePlatform, Supervisor, eventually, fakeProviderSkip, fakeProviderYaml, supervisordBinary } from "./harness.js";

const bin = supervisordBinary();
const skip = bin.skip ?? fakeProviderSkip();
const newId = (p = "ts-out") => `${p}:${randomBytes(6).toString("hex")}`;

/** The error a promise rejects with. */
async function rejection(p: Promise<unknown>): Promise<ChatbusError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof ChatbusError, `not a ChatbusError: ${e}`);
    return e;
  }
  assert.fail("it did not fail");
}

/** Reads a stream in the background; resolves to the error that ended it. */
function streamEnd(stream: AsyncIterable<Update>): Promise<unknown> {
  return (async () => {
    try {
      for await (const _ of stream);
    } catch (e) {
      return e;
    }
    return undefined;
  })();
}

async function startFake(extraArgs: string[] = []) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cb-fake-"));
  const platform = new FakePlatform(dir);
  const sup = await Supervisor.start(bin.path!, {
    extraArgs: ["--heartbeat-interval", "200ms", ...extraArgs],
    configYaml: fakeProviderYaml(dir),
  });
  await sup.waitProvider("fake");
  const withKey = (key: string, faulted = false) =>
    platform.calls().filter((c) => c.idempotency_key === key && ("fault" in c) === faulted);
  return { dir, platform, sup, withKey };
}

describe("outbound", { skip, timeout: 90_000 }, () => {
  let fake: Awaited<ReturnType<typeof startFake>>;
  let client: Client;
  const followers: Follower[] = [];

  before(async () => {
    fake = await startFake();
    client = await fake.sup.client();
  });
  afterEach(async () => {
    for (const f of followers.splice(0)) await f.close().catch(() => {});
  });
  after(async () => {
    client?.close();
    await fake?.sup.stop();
    if (fake) fs.rmSync(fake.dir, { recursive: true, force: true });
  });

  async function register(profileKey: string, opts: Partial<Parameters<Client["register"]>[0]> = {}): Promise<Follower> {
    const f = await client.register({ profileKey, instanceId: newId(), ...opts });
    followers.push(f);
    return f;
  }

  const subscribed = async (f: Follower) =>
    (await client.listFollowers()).some((r) => r.instanceId === f.instanceId && r.subscribed);

  it("a call repeated with one key is sent once; no key: a fresh one", async () => {
    const f = await register("manual:ts-once");
    const results = [];
    for (let i = 0; i < 3; i++) results.push(await f.do("sendMessage", { text: "once" }, { idempotencyKey: "ts-once" }));
    assert.equal(fake.withKey("ts-once").length, 1, JSON.stringify(fake.platform.calls()));
    const id = (results[0].result as { message_id: number }).message_id;
    for (const r of results) assert.deepEqual(r.result, results[0].result);
    assert.deepEqual(
      results[0].references.map((r) => [r.kind, r.id]),
      [[types.ReferenceKind.MESSAGE, String(id)]],
    );

    const first = await f.do("sendMessage", { text: "a key of its own" });
    assert.match(first.idempotencyKey, /^ts:/);
    assert.equal(fake.withKey(first.idempotencyKey).length, 1);
    const again = await f.call("sendMessage", { text: "a key of its own" }, { idempotencyKey: first.idempotencyKey });
    assert.deepEqual(again, first.result);
    assert.equal(fake.withKey(first.idempotencyKey).length, 1);
    const other = await f.do("sendMessage", { text: "a key of its own" });
    assert.notEqual(other.idempotencyKey, first.idempotencyKey);
    assert.notDeepEqual(other.result, first.result);
  });

  it("a rate-limited call waits its turn and goes through, made once", async () => {
    const f = await register("manual:ts-slow");
    fake.platform.failNextCall({ code: "RESOURCE_EXHAUSTED", message: "Too Many Requests: retry after 1", retry_after: 1, reason: "RATE_LIMITED" });
    const res = await f.do("sendMessage", { text: "too fast" });
    assert.equal(fake.withKey(res.idempotencyKey, true).length, 1);
    assert.equal(fake.withKey(res.idempotencyKey).length, 1);
  });

  it("a NOT_FOUND from the platform is not 'session unknown'", async () => {
    const f = await register("manual:ts-gone-message");
    const mine = ((await f.call("sendMessage", { text: "to edit" })) as { message_id: number }).message_id;
    fake.platform.failNextCall({ code: "NOT_FOUND", message: "Bad Request: message to edit not found" });
    const err = await rejection(f.call("editMessageText", { message_id: mine, text: "edited" }));
    assert.ok(err instanceof NotFoundError, `${err.constructor.name}: ${err.message}`);
    assert.ok(!(err instanceof SessionUnknownError));
    assert.equal(err.code, Code.NotFound);
    assert.equal(err.reason, "PLATFORM_NOT_FOUND");
    assert.equal(err.errorReason, ErrorReason.PLATFORM_NOT_FOUND);
    // The failure is recorded: the repeat answers it without a second call.
    const again = await rejection(f.call("editMessageText", { message_id: mine, text: "edited" }, { idempotencyKey: err.idempotencyKey }));
    assert.ok(again instanceof NotFoundError);
    assert.equal(fake.withKey(err.idempotencyKey!, true).length, 1);
    assert.equal(fake.withKey(err.idempotencyKey!).length, 0);
    await f.heartbeat();
    assert.ok(f.alive);

    // A session the supervisor does not know is a SessionUnknownError, a NotFoundError.
    const forged = { instanceId: newId(), token: "x".repeat(32) };
    const unknown = toChatbusError(await client.bus.heartbeat({ session: forged }).then(() => undefined, (e) => e));
    assert.ok(unknown instanceof SessionUnknownError && unknown instanceof NotFoundError);
    assert.equal(unknown.reason, "SESSION_UNKNOWN");
    assert.equal(unknown.errorReason, ErrorReason.SESSION_UNKNOWN);
  });

  it("capabilities, text ids and the update's sender, references, platform", async () => {
    const f = await register("manual:ts-fields", { cwd: "/home/u/ts-fields" });
    const target = f.target!;
    assert.equal(target.chat, String(FAKE_CHAT_ID));
    assert.equal(target.thread, String(target.threadId));
    const caps = f.capabilities!;
    assert.equal(caps.platform, "fake");
    assert.equal(caps.maxTextChars, 4096);
    const edit = caps.methods.find((m) => m.name === "editMessageText")!;
    assert.deepEqual(
      edit.params.map((p) => [p.name, p.kind, p.required]),
      [["message_id", types.ReferenceKind.MESSAGE, true]],
    );
    fake.platform.pushMessage(target.threadId, "who am I", 4242, {
      message_id: 78,
      sender: "U78",
      sender_name: "grace",
      document: { file_id: "doc-78", file_name: "b.txt" },
    });
    const ac = new AbortController();
    let update: Update | undefined;
    for await (const u of f.updates({ signal: ac.signal })) {
      update = u;
      break;
    }
    assert.equal(update?.sender, "U78");
    assert.equal(update?.senderName, "grace");
    assert.equal(update?.platform, "fake");
    assert.deepEqual(
      update?.references.map((r) => [r.kind, r.id]),
      [
        [types.ReferenceKind.MESSAGE, "78"],
        [types.ReferenceKind.FILE, "doc-78"],
      ],
    );
    assert.equal(update?.target?.thread, target.thread);
    await f.ack(update!.seq);
  });

  it("suspend() ends the stream with SuspendedError", async () => {
    const f = await register("manual:ts-suspend");
    const ended = streamEnd(f.updates());
    await eventually(() => subscribed(f), "subscribed");
    const resp = await f.suspend();
    assert.ok(resp.handoffToken);
    const err = await ended;
    assert.ok(err instanceof SuspendedError, `ended with ${err}`);
    assert.ok(err instanceof FailedPreconditionError);
    assert.equal(err.reason, "SUSPENDED");
    assert.equal(err.errorReason, ErrorReason.SUSPENDED);
    assert.ok(f.suspended && f.alive);
    await f.heartbeat();
    const next = await streamEnd(f.updates());
    assert.ok(next instanceof SuspendedError, `a new stream after suspend: ${next}`);
    const successor = await register("manual:ts-suspend", { handoffToken: resp.handoffToken });
    assert.equal(successor.origin, types.Origin.HANDOFF);
    assert.equal(successor.target?.thread, f.target?.thread);
  });

  it("a takeover by profile key ends the old session with TakenOverError", async () => {
    const old = await register("manual:ts-takeover", { instanceId: newId("old") });
    const ended = streamEnd(old.updates());
    await eventually(() => subscribed(old), "subscribed");
    const neu = await register("manual:ts-takeover", { instanceId: newId("new") });
    assert.equal(neu.target?.thread, old.target?.thread);
    const err = await ended;
    assert.ok(err instanceof TakenOverError, `ended with ${err}`);
    assert.equal((err as TakenOverError).errorReason, ErrorReason.TAKEN_OVER);
    assert.ok(err instanceof ReplacedError);
    assert.match(err.rawMessage, /manual:ts-takeover/);
    assert.ok(err.rawMessage.includes(neu.instanceId), err.rawMessage);
    await old.done;
    assert.equal(old.error, err);
    assert.ok(neu.alive);
  });
});

describe("across a supervisor restart", { skip, timeout: 90_000 }, () => {
  it("the default key is reused on the client's own retry", async () => {
    // A long stale-after: the follower outlives the restart; a short
    // shutdown timeout: the stop cuts the held call off quickly.
    const fake = await startFake(["--stale-after", "60s", "--shutdown-timeout", "300ms"]);
    const client = await fake.sup.client();
    let f: Follower | undefined;
    try {
      f = await client.register({ profileKey: "manual:ts-across", instanceId: newId() });
      const before = { token: f.session.token, thread: f.target?.thread };
      // The fake refuses the first attempt as not admitting: the supervisor
      // records the call and holds it.
      fake.platform.failNextCall({ code: "FAILED_PRECONDITION", message: "admission closed: held by the test", reason: "NOT_ADMITTING" });
      const pending = f.do("sendMessage", { text: "across a restart" }, { timeoutMs: 60_000 });
      pending.catch(() => {}); // asserted below
      const [first] = await eventually(
        () => {
          const held = fake.platform.calls().filter((c) => c.params.text === "across a restart");
          return held.length ? held : undefined;
        },
        "the first attempt to reach the fake",
        10_000,
      );
      assert.equal(first.fault, "FAILED_PRECONDITION");
      const key = first.idempotency_key;
      assert.match(key, /^ts:/);

      await fake.sup.restart(); // the held attempt is cut off; the record stays
      const res = await pending;
      assert.equal(res.idempotencyKey, key);
      const sent = fake.withKey(key);
      assert.equal(sent.length, 1, JSON.stringify(fake.platform.calls()));
      assert.equal(sent[0].params.text, "across a restart");
      assert.deepEqual(
        res.references.map((r) => r.id),
        [String((res.result as { message_id: number }).message_id)],
      );
      // A repeat with the key answers the same, without another call.
      assert.deepEqual(await f.call("sendMessage", { text: "across a restart" }, { idempotencyKey: key }), res.result);
      assert.equal(fake.withKey(key).length, 1);
      // The follower registered again with the new supervisor: same thread.
      assert.notEqual(f.session.token, before.token);
      assert.equal(f.origin, types.Origin.REUSE);
      assert.equal(f.target?.thread, before.thread);
      assert.ok(f.alive, f.error?.message);
    } finally {
      await f?.close().catch(() => {});
      client.close();
      await fake.sup.stop();
      fs.rmSync(fake.dir, { recursive: true, force: true });
    }
  });
});
