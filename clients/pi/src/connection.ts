// Reaching the supervisor: start the profile's supervisord if none serves
// (through `busctl start`, the same Ensure chatbus-mcp uses: one lock, so
// concurrent pi sessions start exactly one), dial it, and register the
// session, with its predecessor's handoff token when there is one.

import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as net from "node:net";
import * as path from "node:path";

import { type Client, FailedPreconditionError, type Follower, connect, types } from "@chatbus/client";

import type { Settings } from "./settings.js";

/** Whether something accepts connections on the socket (it need not serve yet). */
export function listening(socket: string, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(socket);
    const timer = setTimeout(() => {
      s.destroy();
      resolve(false);
    }, timeoutMs);
    s.once("connect", () => {
      clearTimeout(timer);
      s.end();
      resolve(true);
    });
    s.once("error", () => {
      clearTimeout(timer);
      resolve(false);
    });
  });
}

/**
 * The chatbus busctl to run: the one configured, else the busctl beside
 * the first supervisord on PATH (the way chatbus installs them, into one
 * directory), else busctl from PATH. A bare "busctl" from PATH may well be
 * systemd's.
 */
export function findBusctl(configured: string, env: Record<string, string | undefined> = process.env): string {
  if (configured) return configured;
  for (const dir of (env.PATH ?? "").split(path.delimiter)) {
    if (!dir || !executable(path.join(dir, "supervisord"))) continue;
    const sibling = path.join(dir, "busctl");
    if (executable(sibling)) return sibling;
  }
  return "busctl";
}

function executable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/**
 * Makes sure a supervisord serves the profile's socket: `busctl start`
 * returns once one serves, starting it (in the background, its own session)
 * if none did. Resolves to busctl's one-line report.
 */
export function ensureSupervisor(s: Settings, timeoutMs = 20_000): Promise<string> {
  const args = ["--profile", s.profile, "--socket", s.socket, "--state-dir", s.stateDir, "--secret-file", s.secretFile];
  args.push("start", "--timeout", `${Math.floor(timeoutMs / 1000) - 2}s`);
  const busctl = findBusctl(s.busctl);
  return new Promise((resolve, reject) => {
    execFile(busctl, args, { timeout: timeoutMs, encoding: "utf8" }, (err, stdout, stderr) => {
      if (err) {
        const why =
          (err as NodeJS.ErrnoException).code === "ENOENT"
            ? `${busctl} not found: install chatbus (make install), or set CHATBUS_BUSCTL or busctl in chatbus.json`
            : stderr.trim() || err.message;
        reject(new Error(`start supervisord (profile ${s.profile}) with ${busctl}: ${why}`));
        return;
      }
      resolve(stdout.trim());
    });
  });
}

/** Dials the supervisor, starting it first when allowed. */
export async function dial(s: Settings, log: (line: string) => void): Promise<Client> {
  if (s.start && !(await listening(s.socket))) {
    log(`no supervisor on ${s.socket}: starting one`);
    log(await ensureSupervisor(s));
  }
  return connect({ socket: s.socket, secretFile: s.secretFile });
}

/** What a registration was asked for. */
export interface RegisterInit {
  profileKey: string;
  threadName: string;
  provider: string;
  cwd: string;
  handoffToken?: string;
  /** $CHATBUS_LAUNCH_ID, when chatbus started this pi from a launch template. */
  launchId?: string;
}

/**
 * Registers the session. A handoff token the supervisor no longer holds
 * (expired, used) is not an error: the profile key finds the thread
 * (REUSE).
 */
export async function register(c: Client, r: RegisterInit, log: (line: string) => void): Promise<Follower> {
  const base = { profileKey: r.profileKey, threadName: r.threadName, provider: r.provider, cwd: r.cwd, agent: "pi", launchId: r.launchId ?? "" };
  if (r.handoffToken) {
    try {
      return await c.register({ ...base, handoffToken: r.handoffToken });
    } catch (e) {
      if (!(e instanceof FailedPreconditionError)) throw e;
      log(`handoff token refused (${e.rawMessage}); registering by profile key`);
    }
  }
  return c.register(base);
}

/** The origin's name: FRESH, REUSE, HANDOFF or DETACHED. */
export function originName(o: types.Origin): string {
  return types.Origin[o] ?? String(o);
}
