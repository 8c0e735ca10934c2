// The package people install: scripts/pack.mjs packs @chatbus/client (with
// the version from the repository's tags), a fresh project in a temp dir
// npm-installs the tarball (its dependencies come from the npm registry),
// and the echo example, importing "@chatbus/client", echoes a message end to
// end through a real supervisord with provider-fake.

import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, describe, it } from "node:test";

import {
  FakePlatform,
  Supervisor,
  TS_ROOT,
  eventually,
  fakeProviderSkip,
  fakeProviderYaml,
  supervisordBinary,
} from "./harness.js";

const bin = supervisordBinary();
const fakeSkip = bin.skip ?? fakeProviderSkip();

function run(cmd: string, args: string[], cwd: string): string {
  return execFileSync(cmd, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
}

describe("the version from the repository's tags", () => {
  it("follows git describe", async () => {
    const { fromDescribe } = (await import(path.join(TS_ROOT, "scripts", "version.mjs"))) as {
      fromDescribe: (d: string) => string | undefined;
    };
    const cases: [string, string, string | undefined][] = [
      ["release tag", "v1.2.3-0-gabc1234", "1.2.3"],
      ["after a tag", "v1.2.3-4-gabc1234", "1.2.4-dev.4.gabc1234"],
      ["dirty release", "v1.2.3-0-gabc1234-dirty", "1.2.3-dirty"],
      ["dirty after a tag", "v0.9.0-12-g0123abcd-dirty", "0.9.1-dev.12.g0123abcd.dirty"],
      ["pre-release tag", "v2.0.0-rc.1-0-gabc1234", "2.0.0-rc.1"],
      ["no tag yet", "42d3ea6", "0.0.0-dev.0.g42d3ea6"],
      ["no tag, dirty", "42d3ea6-dirty", "0.0.0-dev.0.g42d3ea6.dirty"],
      ["not a version tag", "release-1-gabc", undefined],
    ];
    for (const [name, describe, want] of cases) assert.equal(fromDescribe(describe), want, name);
  });
});

describe("npm pack → npm install in a fresh project → import from @chatbus/client", { skip: fakeSkip }, () => {
  let tmp: string;
  let project: string;
  let sup: Supervisor;
  let platform: FakePlatform;
  let want: string;

  before(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "cb-npm-"));
    want = run(process.execPath, [path.join(TS_ROOT, "scripts", "version.mjs")], TS_ROOT).trim();
    const tarball = run(process.execPath, [path.join(TS_ROOT, "scripts", "pack.mjs"), tmp], TS_ROOT).trim();
    assert.equal(path.basename(tarball), `chatbus-client-${want}.tgz`);

    project = path.join(tmp, "project");
    fs.mkdirSync(project);
    fs.writeFileSync(
      path.join(project, "package.json"),
      JSON.stringify({ name: "echo-project", private: true, type: "module" }, null, 2),
    );
    run("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", tarball], project);

    // The compiled example, importing the package by name instead of ../src.
    const compiled = fs.readFileSync(path.join(TS_ROOT, "dist", "examples", "echo-follower.js"), "utf8");
    const imports = compiled.match(/from "\.\.\/src\/index\.js"/g) ?? [];
    assert.equal(imports.length, 1, "the example imports ../src/index.js exactly once");
    fs.writeFileSync(
      path.join(project, "echo-follower.js"),
      compiled.replace('from "../src/index.js"', 'from "@chatbus/client"'),
    );

    const control = fs.mkdtempSync(path.join(os.tmpdir(), "cb-fake-"));
    platform = new FakePlatform(control);
    sup = await Supervisor.start(bin.path!, { extraArgs: ["--heartbeat-interval", "200ms"], configYaml: fakeProviderYaml(control) });
    await sup.waitProvider("fake");
  });

  after(async () => {
    await sup?.stop();
    if (platform) fs.rmSync(platform.dir, { recursive: true, force: true });
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it("installs with its version, types and only its files", () => {
    const root = path.join(project, "node_modules", "@chatbus", "client");
    const pkg = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"));
    assert.equal(pkg.version, want);
    assert.ok(fs.existsSync(path.join(root, "dist", "src", "index.d.ts")));
    assert.ok(!fs.existsSync(path.join(root, "dist", "test")), "tests are not packed");
    assert.ok(!fs.existsSync(path.join(root, "src")), "sources are not packed");
    for (const dep of ["@bufbuild/protobuf", "@connectrpc/connect", "@connectrpc/connect-node"]) {
      assert.ok(fs.existsSync(path.join(project, "node_modules", ...dep.split("/"))), dep);
    }
    const resolved = run(process.execPath, ["--input-type=module", "-e", 'console.log(import.meta.resolve("@chatbus/client"))'], project).trim();
    assert.equal(resolved, "file://" + path.join(root, "dist", "src", "index.js"));
  });

  it("runs the echo example from the installed package", async () => {
    const proc = spawn(process.execPath, ["echo-follower.js", "--profile-key", "manual:npm-echo"], {
      cwd: project,
      env: { ...process.env, CHATBUS_SOCKET: sup.socket, CHATBUS_SECRET_FILE: sup.secretFile },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    proc.stderr!.on("data", (d) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => proc.once("exit", (code) => resolve(code)));
    const c = await sup.client();
    try {
      const row = await eventually(
        async () => (await c.listFollowers()).find((f) => f.pid === proc.pid && f.subscribed),
        "the installed example to register and subscribe",
        15_000,
      );
      const thread = row.binding!.target!.threadId;
      platform.pushMessage(thread, "ping from npm");
      await eventually(
        () =>
          platform
            .calls()
            .find((call) => call.method === "send" && call.params.text === "ping from npm" && call.thread === String(thread)),
        "the installed example to echo",
        10_000,
      );
      proc.kill("SIGTERM");
      assert.equal(await exited, 0, stderr);
      assert.match(stderr, /ORIGIN_FRESH/);
    } finally {
      if (proc.exitCode === null) proc.kill("SIGKILL");
      c.close();
    }
  });
});
