// Test harness: a real supervisord in a temporary directory.
//
// Supervisor.start({ extraArgs, configYaml }) starts the daemon on a short
// socket path under /tmp (Unix socket paths are limited to 107 bytes) with
// its own state dir, HOME and config dir, waits until it serves, and stops
// it at stop(). Tests that need a provider later pass a config file naming
// one (e.g. a Telegram provider pointed at a local Bot API stand-in) through
// configYaml or flags through extraArgs.
//
// restart() stops it (SIGTERM) and starts it again on the same socket, state
// and config.
//
// fakeProviderYaml(controlDir) configures clients/testdata/provider-fake, a
// provider child written in Python whose "platform" is a directory: tests
// drop inbound messages into it, make its next calls fail, and read the
// calls the supervisor made (FakePlatform).
//
// The binary is $CHATBUS_SUPERVISORD when set (`make test-clients` builds it
// once for both languages), else built here with `go build`. Without either,
// the tests skip loudly, unless CHATBUS_REQUIRE_CLIENT_TESTS=1 (set by
// .ci/run), which turns the skip into a failure.

import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

import { Client, admin, connect, type ConnectOptions } from "../src/index.js";

// dist/test/harness.js -> clients/ts
export const TS_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
export const REPO_ROOT = path.resolve(TS_ROOT, "..", "..");
export const REQUIRED = process.env.CHATBUS_REQUIRE_CLIENT_TESTS === "1";
export const FAKE_PROVIDER = path.resolve(TS_ROOT, "..", "testdata", "provider-fake");
export const FAKE_CHAT_ID = -100123n;

/** Returns why the tests cannot run (to skip loudly), or throws when they are required. */
export function unavailable(why: string): string {
  const msg = `chatbus TypeScript client tests cannot run: ${why}`;
  if (REQUIRED) throw new Error(`${msg} (CHATBUS_REQUIRE_CLIENT_TESTS=1 forbids skipping)`);
  const banner = "!".repeat(72);
  console.error(`\n${banner}\nSKIPPING: ${msg}\n${banner}`);
  return msg;
}

/** The supervisord binary, or a skip reason. */
export function supervisordBinary(): { path?: string; skip?: string } {
  const env = process.env.CHATBUS_SUPERVISORD;
  if (env) {
    try {
      fs.accessSync(env, fs.constants.X_OK);
    } catch {
      return { skip: unavailable(`CHATBUS_SUPERVISORD=${env} is not an executable`) };
    }
    return { path: env };
  }
  const out = fs.mkdtempSync("/tmp/cb-sd-");
  process.once("exit", () => fs.rmSync(out, { recursive: true, force: true }));
  const bin = path.join(out, "supervisord");
  try {
    execFileSync("go", ["build", "-o", bin, "./cmd/supervisord"], { cwd: REPO_ROOT, stdio: "inherit" });
  } catch (e) {
    return { skip: unavailable(`no CHATBUS_SUPERVISORD and go build failed: ${(e as Error).message}`) };
  }
  return { path: bin };
}

export interface StartOptions {
  extraArgs?: string[];
  configYaml?: string;
  readyTimeoutMs?: number;
}

/** A running supervisord. */
export class Supervisor {
  proc!: ChildProcess;
  private exited!: Promise<number | null>;
  private served = 0; // "serving" lines in the log before the latest start

  private constructor(
    readonly dir: string,
    readonly socket: string,
    readonly stateDir: string,
    readonly secretFile: string,
    readonly logPath: string,
    private readonly binary: string,
    private readonly args: string[],
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  private spawn(): void {
    const log = fs.openSync(this.logPath, "a");
    this.proc = spawn(this.binary, this.args, { stdio: ["ignore", log, log], env: this.env });
    fs.closeSync(log);
    const proc = this.proc;
    this.exited = new Promise<number | null>((resolve) => proc.once("exit", (code) => resolve(code)));
  }

  /** Stops the daemon gracefully (SIGTERM) and starts it again with the same socket, state dir and config. */
  async restart(readyTimeoutMs = 15_000): Promise<void> {
    if (this.proc.exitCode === null && this.proc.signalCode === null) {
      this.proc.kill("SIGTERM");
      await this.exited;
    }
    this.served = this.log().split('"message":"serving"').length - 1;
    this.spawn();
    await this.waitReady(readyTimeoutMs);
  }

  static async start(binary: string, opts: StartOptions = {}): Promise<Supervisor> {
    const dir = fs.mkdtempSync("/tmp/cb");
    const socket = path.join(dir, "s.sock");
    const stateDir = path.join(dir, "state");
    const logPath = path.join(dir, "supervisord.log");
    const home = path.join(dir, "home");
    fs.mkdirSync(home);
    // No default playground: without a provider configured, followers
    // register DETACHED, which is what the tests without one expect.
    const args = ["--socket", socket, "--state-dir", stateDir, "--log-format", "json", "--default-playground=false", "--console=false"];
    if (opts.configYaml !== undefined) {
      const cfg = path.join(dir, "config.yaml");
      fs.writeFileSync(cfg, opts.configYaml);
      args.push("--config", cfg);
    }
    args.push(...(opts.extraArgs ?? []));
    fs.writeFileSync(logPath, "");
    const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(dir, "config"), XDG_RUNTIME_DIR: "", XDG_STATE_HOME: "" };
    const sup = new Supervisor(dir, socket, stateDir, path.join(stateDir, "secret"), logPath, binary, args, env);
    sup.spawn();
    try {
      await sup.waitReady(opts.readyTimeoutMs ?? 15_000);
    } catch (e) {
      await sup.stop();
      throw e;
    }
    return sup;
  }

  private async waitReady(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (this.proc.exitCode !== null) throw new Error(`supervisord exited with ${this.proc.exitCode}:\n${this.log()}`);
      if (this.log().split('"message":"serving"').length - 1 > this.served && fs.existsSync(this.secretFile)) return;
      await sleep(50);
    }
    throw new Error(`supervisord not serving after ${timeoutMs}ms:\n${this.log()}`);
  }

  log(): string {
    return fs.readFileSync(this.logPath, "utf8");
  }

  /** Waits until the provider's child is RUNNING; returns its ProviderInfo. */
  async waitProvider(name: string, timeoutMs = 15_000): Promise<admin.ProviderInfo> {
    const c = await this.client();
    try {
      return await eventually(
        async () =>
          (await c.admin.listProviders({})).providers.find(
            (p) => p.name === name && p.state === admin.ProviderState.RUNNING,
          ),
        `provider ${name} RUNNING`,
        timeoutMs,
      );
    } catch (e) {
      throw new Error(`${(e as Error).message}\n${this.log()}`);
    } finally {
      c.close();
    }
  }

  client(opts: ConnectOptions = {}): Promise<Client> {
    return connect({ socket: this.socket, secretFile: this.secretFile, ...opts });
  }

  async stop(): Promise<void> {
    if (this.proc.exitCode === null && this.proc.signalCode === null) {
      this.proc.kill("SIGTERM");
      const timer = setTimeout(() => this.proc.kill("SIGKILL"), 10_000);
      await this.exited;
      clearTimeout(timer);
    }
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls cond until it returns a truthy value; throws after timeoutMs. */
export async function eventually<T>(cond: () => Promise<T> | T, what: string, timeoutMs = 5000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await cond();
    if (v) return v as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs}ms waiting for ${what}`);
    await sleep(50);
  }
}

/** Whether provider-fake can run: it needs /usr/bin/python3 with grpc; else a skip reason. */
export function fakeProviderSkip(): string | undefined {
  try {
    execFileSync("/usr/bin/python3", ["-c", "import grpc, google.protobuf"], { stdio: "ignore" });
    return undefined;
  } catch {
    return unavailable("provider-fake needs /usr/bin/python3 with grpc (apt-get install -y python3-grpcio python3-protobuf)");
  }
}

/** A config file section running provider-fake as the default provider, with its platform in controlDir. */
export function fakeProviderYaml(controlDir: string, name = "fake", chatId = FAKE_CHAT_ID): string {
  return `providers:\n  ${name}:\n    binary: ${FAKE_PROVIDER}\n    forum_chat_id: ${chatId}\n    control_dir: ${controlDir}\n`;
}

export interface FakeCall {
  method: string;
  params: Record<string, unknown>;
  idempotency_key: string;
  /** A verb's target thread (as text); absent for a method. */
  thread?: string;
  /** The code a fault answered it with (failNextCall); absent when the call went through. */
  fault?: string;
}

export interface Fault {
  /** A grpc status code name, e.g. "RESOURCE_EXHAUSTED"; empty: answer as usual (after delay). */
  code?: string;
  message?: string;
  /** A google.rpc.RetryInfo delay, in seconds. */
  retry_after?: number;
  /** The provider's ErrorInfo reason (domain "provider.chatbus"). */
  reason?: string;
  /** Seconds to wait before answering. */
  delay?: number;
}

/** The directory provider-fake uses as its platform. */
export interface FakeUpload {
  chat_id: number;
  thread_id: number;
  filename: string;
  caption: string;
  kind: string;
  file_id: string;
  size: number;
}

export class FakePlatform {
  private n = 0;

  constructor(readonly dir: string) {
    fs.mkdirSync(path.join(dir, "inbox"), { recursive: true });
  }

  /**
   * An inbound message in a thread, as a user would send it; fields (e.g.
   * message_id, document) go into the Telegram-shaped payload.
   */
  pushMessage(threadId: bigint | number, text: string, fromUserId = 4242, fields: object = {}): void {
    this.n++;
    const tmp = path.join(this.dir, "inbox", `.${this.n}.tmp`);
    fs.writeFileSync(tmp, JSON.stringify({ ...fields, thread_id: Number(threadId), text, from_user_id: fromUserId }));
    const stamp = process.hrtime.bigint().toString().padStart(20, "0");
    fs.renameSync(tmp, path.join(this.dir, "inbox", `${stamp}-${String(this.n).padStart(6, "0")}.json`));
  }

  /** Every Call the provider received. */
  calls(): FakeCall[] {
    return this.records("calls.jsonl") as FakeCall[];
  }

  /** Makes the next Call (after those already queued) fail as fault says. */
  failNextCall(fault: Fault): void {
    this.n++;
    const dir = path.join(this.dir, "faults");
    fs.mkdirSync(dir, { recursive: true });
    const tmp = path.join(dir, `.${this.n}.tmp`);
    fs.writeFileSync(tmp, JSON.stringify(fault));
    const stamp = process.hrtime.bigint().toString().padStart(20, "0");
    fs.renameSync(tmp, path.join(dir, `${stamp}-${String(this.n).padStart(6, "0")}.json`));
  }

  /** Every thread ProvisionTarget created. */
  targets(): { chat_id: number; name: string; thread_id: number }[] {
    return this.records("targets.jsonl") as { chat_id: number; name: string; thread_id: number }[];
  }

  /** Every UploadFile the provider received. */
  uploads(): FakeUpload[] {
    return this.records("uploads.jsonl") as FakeUpload[];
  }

  /** A file's content on the platform. */
  file(fileId: string): Buffer {
    return fs.readFileSync(path.join(this.dir, "files", fileId));
  }

  /** A file on the platform, as a user's upload leaves it. */
  putFile(fileId: string, data: Uint8Array): void {
    fs.mkdirSync(path.join(this.dir, "files"), { recursive: true });
    fs.writeFileSync(path.join(this.dir, "files", fileId), data);
  }

  private records(name: string): unknown[] {
    let text: string;
    try {
      text = fs.readFileSync(path.join(this.dir, name), "utf8");
    } catch {
      return [];
    }
    return text
      .split("\n")
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l));
  }
}
