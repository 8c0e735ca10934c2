// Unit tests of the package's parts that need no pi and no supervisor: the
// streaming module, the ack point, the dialog relay, the settings and the
// update classification. The package with the real pi is tested from Go
// (e2e/pi_test.go).
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, it } from "node:test";

import { defaultPaths, types } from "@chatbus/client";

import { AckTracker } from "../src/acks.js";
import { findBusctl } from "../src/connection.js";
import { classify, imageType } from "../src/inbound.js";
import { PromptRelay, escapeMarkdown } from "../src/prompts.js";
import { loadSettings } from "../src/settings.js";
import { AnswerStream, type StreamButton, splitMarkdown } from "../src/stream.js";

/** A sink that records StreamMessage calls, as the supervisor answers them (one message). */
class FakeSink {
  calls: { id: string; text: string; final: boolean; buttons: number }[] = [];
  async stream(id: string, text: string, final: boolean, buttons: StreamButton[]): Promise<string[]> {
    this.calls.push({ id, text, final, buttons: buttons.length });
    return ["m1"];
  }
}

describe("splitMarkdown", () => {
  it("keeps a short text whole and cuts a long one at paragraphs", () => {
    assert.deepEqual(splitMarkdown("hello", 100), ["hello"]);
    assert.deepEqual(splitMarkdown("", 100), []);
    const para = "a".repeat(60);
    const parts = splitMarkdown(`${para}\n\n${para}\n\n${para}`, 130);
    assert.deepEqual(parts, [`${para}\n\n${para}`, para]);
  });
  it("closes a code block cut in two and opens it again", () => {
    const code = "```go\n" + Array.from({ length: 30 }, (_, i) => `line ${i}`).join("\n") + "\n```";
    const parts = splitMarkdown(code, 120);
    assert.ok(parts.length > 1);
    for (const p of parts) {
      assert.ok(p.length <= 120, `a part of ${p.length}`);
      assert.equal((p.match(/^```/gm) ?? []).length % 2, 0, `an unbalanced fence in ${JSON.stringify(p)}`);
    }
    assert.ok(parts[1].startsWith("```go\n"));
  });
  it("never cuts a surrogate pair", () => {
    const parts = splitMarkdown("😀".repeat(100), 65);
    for (const p of parts) assert.doesNotThrow(() => encodeURIComponent(p));
    assert.equal(parts.join(""), "😀".repeat(100));
  });
});

describe("AnswerStream", () => {
  it("streams the whole text under one id, folds fast updates into few calls, and ends on one final call without buttons", async () => {
    const sink = new FakeSink();
    const s = new AnswerStream(sink, { intervalMs: 50, buttons: [{ label: "⏹", data: "pi:stop" }] });
    let text = "";
    for (let i = 0; i < 200; i++) {
      text += `w${i} `;
      s.update(text);
      if (i % 20 === 0) await new Promise((r) => setTimeout(r, 10));
    }
    await s.finish(text + "end");
    assert.equal(sink.calls[0].buttons, 1);
    assert.equal(new Set(sink.calls.map((c) => c.id)).size, 1, "one stream id");
    const finals = sink.calls.filter((c) => c.final);
    assert.deepEqual(finals.map((c) => [c.text, c.buttons]), [[text + "end", 0]]);
    assert.equal(sink.calls[sink.calls.length - 1].final, true);
    assert.ok(sink.calls.length < 20, `${sink.calls.length} calls for 200 updates`);
    assert.deepEqual(s.messageIds, ["m1"]);
  });
  it("gives each stream its own id", async () => {
    const sink = new FakeSink();
    await new AnswerStream(sink, { intervalMs: 1 }).finish("one");
    await new AnswerStream(sink, { intervalMs: 1 }).finish("two");
    assert.equal(sink.calls.length, 2);
    assert.notEqual(sink.calls[0].id, sink.calls[1].id);
  });
  it("sends nothing for an empty answer", async () => {
    const sink = new FakeSink();
    await new AnswerStream(sink, { intervalMs: 1 }).finish("  ");
    assert.equal(sink.calls.length, 0);
  });
});

describe("AckTracker", () => {
  it("acks only through updates that are all done", () => {
    const a = new AckTracker();
    for (const s of [1n, 2n, 3n]) a.arrived(s);
    assert.equal(a.complete(2n), undefined); // 1 is still with pi
    assert.equal(a.complete(1n), 2n);
    assert.equal(a.complete(3n), 3n);
    assert.equal(a.outstanding, 0);
    a.arrived(2n); // replayed: below the ack point
    assert.equal(a.outstanding, 0);
  });
});

describe("PromptRelay", () => {
  function setup() {
    const posted: { text: string; data: string[] }[] = [];
    const settled: string[] = [];
    const notes: string[] = [];
    const relay = new PromptRelay({
      ready: () => true,
      post: async (text, buttons) => {
        posted.push({ text, data: buttons.map((b) => b.data) });
        return `p${posted.length}`;
      },
      settle: async (_id, text) => void settled.push(text),
      notify: (t) => void notes.push(t),
      onError: (e) => assert.fail(String(e)),
    });
    let closed: AbortSignal | undefined;
    let answerTerminal: ((v: boolean) => void) | undefined;
    const ui = {
      confirm: (_t: string, _m: string, opts?: { signal?: AbortSignal }) =>
        new Promise<boolean>((resolve) => {
          closed = opts?.signal;
          answerTerminal = resolve;
          opts?.signal?.addEventListener("abort", () => resolve(false));
        }),
      select: async () => undefined,
    };
    const uninstall = relay.install(ui);
    return { relay, ui, posted, settled, notes, uninstall, terminal: () => ({ closed, answer: answerTerminal! }) };
  }
  const tick = () => new Promise((r) => setTimeout(r, 5));

  it("takes the thread's answer first and closes the terminal's dialog", async () => {
    const s = setup();
    const asked = s.ui.confirm("Run it?", "rm -rf /tmp/x");
    await tick();
    assert.equal(s.posted.length, 1);
    assert.match(s.posted[0].text, /Run it\\\?/);
    assert.equal(s.relay.press(s.posted[0].data[0]), "Yes");
    assert.equal(await asked, true);
    assert.equal(s.terminal().closed?.aborted, true);
    assert.match(s.settled[0], /Yes.*answered here/);
    assert.equal(s.relay.press(s.posted[0].data[1]), "This question was answered already.");
    assert.match(s.notes[0], /answered in the chat/);
  });
  it("takes the terminal's answer first and shows it in the thread", async () => {
    const s = setup();
    const asked = s.ui.confirm("Run it?", "ls");
    await tick();
    s.terminal().answer(false);
    assert.equal(await asked, false);
    await tick();
    assert.match(s.settled[0], /No.*answered at the terminal/);
    s.uninstall();
  });
  it("escapes what it shows", () => {
    assert.equal(escapeMarkdown("a*b_[c](d)"), "a\\*b\\_\\[c\\]\\(d\\)");
  });
});

describe("settings", () => {
  it("has defaults, reads chatbus.json and the environment, and names what is wrong", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cb-pi-"));
    const env = { HOME: dir };
    const d = loadSettings(dir, env);
    assert.deepEqual([d.busy, d.answers, d.trace, d.start, d.profile], ["steer", "all", 3, true, "default"]);
    // The client library's default (its tests pin each OS's layout).
    assert.equal(d.socket, defaultPaths("default", env).socket);
    fs.writeFileSync(path.join(dir, "chatbus.json"), JSON.stringify({ busy: "followUp", trace: 0 }));
    const f = loadSettings(dir, { ...env, CHATBUS_PI_TRACE: "5", CHATBUS_NO_START: "1" });
    assert.deepEqual([f.busy, f.trace, f.start], ["followUp", 5, false]);
    fs.writeFileSync(path.join(dir, "chatbus.json"), JSON.stringify({ bussy: "steer" }));
    assert.throws(() => loadSettings(dir, env), /unknown key "bussy"/);
    fs.writeFileSync(path.join(dir, "chatbus.json"), JSON.stringify({ busy: "now" }));
    assert.throws(() => loadSettings(dir, env), /busy/);
  });
  it("finds the busctl beside supervisord, not systemd's", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cb-pi-bin-"));
    for (const f of ["supervisord", "busctl"]) fs.writeFileSync(path.join(dir, f), "#!/bin/sh\n", { mode: 0o755 });
    assert.equal(findBusctl("", { PATH: `/nonexistent:${dir}` }), path.join(dir, "busctl"));
    assert.equal(findBusctl("/opt/x/busctl", { PATH: dir }), "/opt/x/busctl");
    assert.equal(findBusctl("", { PATH: "/nonexistent" }), "busctl");
  });
});

describe("classify", () => {
  const u = (kind: types.UpdateKind, text: string, refs: [types.ReferenceKind, string][] = []) =>
    ({ seq: 1n, kind, text, references: refs.map(([kind, id]) => ({ kind, id })) }) as unknown as types.Update;
  it("sorts presses, commands and messages", () => {
    const K = types.UpdateKind;
    const R = types.ReferenceKind;
    assert.deepEqual(classify(u(K.MESSAGE, "/stop")), { kind: "command", name: "stop", args: "", text: "/stop" });
    assert.equal(classify(u(K.MESSAGE, "/review src/a.ts")).kind, "command");
    assert.equal(classify(u(K.MESSAGE, "hello")).kind, "message");
    assert.equal(classify(u(K.MESSAGE, "", [[R.FILE, "f1"]])).kind, "message");
    assert.equal(classify(u(K.MESSAGE, "")).kind, "ignore");
    assert.equal(classify(u(K.REACTION, "👍")).kind, "ignore");
    const press = classify(u(K.CALLBACK_QUERY, "pi:stop", [[R.INTERACTION, "i1"], [R.MESSAGE, "m1"]]));
    assert.deepEqual(press, { kind: "press", data: "pi:stop", interaction: "i1", messageId: "m1" });
  });
  it("knows an image by its bytes", () => {
    assert.equal(imageType(Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])), "image/png");
    assert.equal(imageType(Uint8Array.from([0xff, 0xd8, 0xff, 0xe0])), "image/jpeg");
    assert.equal(imageType(new TextEncoder().encode("%PDF-1.7")), undefined);
  });
});
