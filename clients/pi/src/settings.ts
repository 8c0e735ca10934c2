// What the package reads: the supervisor to talk to (the chatbus profile's
// default paths, or CHATBUS_* like chatbus-mcp and busctl), and how a pi
// session behaves in its thread (<pi agent dir>/chatbus.json, then the
// CHATBUS_PI_* variables). Everything has a default: a pi with the package
// installed and nothing configured talks to the default profile's
// supervisor, starting it if none runs.

import * as fs from "node:fs";
import * as path from "node:path";

import { defaultPaths } from "@chatbus/client";

/** How a person's message is given to a pi that is working. */
export type BusyMode = "steer" | "followUp";

/** Which answers go to the thread. */
export type AnswersMode = "all" | "chat";

export interface Settings {
  /** The chatbus profile (CHATBUS_PROFILE; default "default"). */
  profile: string;
  socket: string;
  stateDir: string;
  secretFile: string;
  /** The session's identity for the supervisor (CHATBUS_PROFILE_KEY); "" = "pi:<pi session id>". */
  profileKey: string;
  /** The thread's name (CHATBUS_THREAD_NAME); "" = the supervisor's choice (the directory's name). */
  threadName: string;
  /** The provider to bind on (CHATBUS_PROVIDER); "" = the supervisor's default. */
  provider: string;
  /** Start the profile's supervisord when none runs (CHATBUS_NO_START=1 turns it off). */
  start: boolean;
  /**
   * The chatbus busctl that starts it (CHATBUS_BUSCTL); "" = the busctl
   * beside the supervisord found on PATH (systemd has a busctl of its own).
   */
  busctl: string;
  /** A message while pi works: "steer" (into the next model request) or "followUp" (after the run). */
  busy: BusyMode;
  /** "all": every answer of the session streams into the thread; "chat": only runs a chat message started. */
  answers: AnswersMode;
  /** Tool calls shown in the run's trace message (its last lines); 0: none. */
  trace: number;
  /** The shortest time between two edits of a streaming message, in ms. */
  editIntervalMs: number;
  /** Relay pi's confirmation and selection dialogs into the thread as buttons. */
  prompts: boolean;
  /** Show "typing" in the thread while pi works. */
  typing: boolean;
  /** Where the settings file is (read or not). */
  file: string;
}

/** The settings file's keys (all optional). */
interface FileSettings {
  profile?: string;
  socket?: string;
  stateDir?: string;
  secretFile?: string;
  profileKey?: string;
  threadName?: string;
  provider?: string;
  start?: boolean;
  busctl?: string;
  busy?: BusyMode;
  answers?: AnswersMode;
  trace?: number;
  editIntervalMs?: number;
  prompts?: boolean;
  typing?: boolean;
}

const KEYS: Record<keyof FileSettings, string> = {
  profile: "string",
  socket: "string",
  stateDir: "string",
  secretFile: "string",
  profileKey: "string",
  threadName: "string",
  provider: "string",
  start: "boolean",
  busctl: "string",
  busy: "string",
  answers: "string",
  trace: "number",
  editIntervalMs: "number",
  prompts: "boolean",
  typing: "boolean",
};

/**
 * Reads the settings: the file's keys, then the environment over them.
 * Throws an Error naming the file, key or variable that is wrong.
 */
export function loadSettings(agentDir: string, env: Record<string, string | undefined> = process.env): Settings {
  const file = path.join(agentDir, "chatbus.json");
  let f: FileSettings = {};
  let raw: string | undefined;
  try {
    raw = fs.readFileSync(file, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw new Error(`${file}: ${(e as Error).message}`);
  }
  if (raw !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch (e) {
      throw new Error(`${file}: not JSON: ${(e as Error).message}`);
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error(`${file}: want a JSON object`);
    for (const [k, v] of Object.entries(parsed)) {
      const want = KEYS[k as keyof FileSettings];
      if (!want) throw new Error(`${file}: unknown key ${JSON.stringify(k)} (known: ${Object.keys(KEYS).join(", ")})`);
      if (typeof v !== want) throw new Error(`${file}: ${k} must be a ${want}`);
    }
    f = parsed as FileSettings;
  }
  const e = (name: string) => (env[name] === "" ? undefined : env[name]);
  const profile = e("CHATBUS_PROFILE") ?? f.profile ?? "default";
  const d = defaultPaths(profile, env);
  const stateDir = e("CHATBUS_STATE_DIR") ?? f.stateDir ?? d.stateDir;
  const s: Settings = {
    profile,
    socket: e("CHATBUS_SOCKET") ?? f.socket ?? d.socket,
    stateDir,
    secretFile: e("CHATBUS_SECRET_FILE") ?? f.secretFile ?? path.join(stateDir, "secret"),
    profileKey: e("CHATBUS_PROFILE_KEY") ?? f.profileKey ?? "",
    threadName: e("CHATBUS_THREAD_NAME") ?? f.threadName ?? "",
    provider: e("CHATBUS_PROVIDER") ?? f.provider ?? "",
    start: e("CHATBUS_NO_START") === "1" ? false : (f.start ?? true),
    busctl: e("CHATBUS_BUSCTL") ?? f.busctl ?? "",
    busy: (e("CHATBUS_PI_BUSY") as BusyMode | undefined) ?? f.busy ?? "steer",
    answers: (e("CHATBUS_PI_ANSWERS") as AnswersMode | undefined) ?? f.answers ?? "all",
    trace: numberOr(e("CHATBUS_PI_TRACE"), "CHATBUS_PI_TRACE") ?? f.trace ?? 3,
    editIntervalMs: numberOr(e("CHATBUS_PI_EDIT_INTERVAL_MS"), "CHATBUS_PI_EDIT_INTERVAL_MS") ?? f.editIntervalMs ?? 1250,
    prompts: f.prompts ?? true,
    typing: f.typing ?? true,
    file,
  };
  if (s.busy !== "steer" && s.busy !== "followUp") throw new Error(`busy: ${JSON.stringify(s.busy)}: want "steer" or "followUp"`);
  if (s.answers !== "all" && s.answers !== "chat") throw new Error(`answers: ${JSON.stringify(s.answers)}: want "all" or "chat"`);
  if (!Number.isInteger(s.trace) || s.trace < 0 || s.trace > 20) throw new Error(`trace: ${s.trace}: want 0 to 20 lines`);
  if (!(s.editIntervalMs >= 100 && s.editIntervalMs <= 60_000)) {
    throw new Error(`editIntervalMs: ${s.editIntervalMs}: want 100 to 60000`);
  }
  return s;
}

function numberOr(v: string | undefined, name: string): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isFinite(n)) throw new Error(`${name}=${JSON.stringify(v)}: want a number`);
  return n;
}
