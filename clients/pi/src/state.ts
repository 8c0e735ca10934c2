// The package's own files, under the supervisor's state dir (so they live
// and go with the profile, beside the journal), in one 0700 directory "pi":
//
//   handoff-<h>.json   the token a suspended session leaves for its
//                      successor (a /reload, a session switch, /quit then
//                      pi --continue), 0600, taken (removed) by the next
//                      registration of the profile key
//   session-<s>        the profile key a pi session id registers with, when
//                      it is not "pi:<session id>" (a session a /new or
//                      /resume switched to keeps its predecessor's thread)
//   inbox/<h>/         files people sent in the thread, for pi to read
//   pi.log             what the package did, one line per event
//
// <h> is a hash of the profile key, <s> of the session id: both may hold
// any character.

import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";

export interface Handoff {
  profileKey: string;
  token: string;
  /** When the supervisor stops holding the thread for it (ms since the epoch). */
  expiresAt: number;
  /** The thread, for people reading the file. */
  thread?: string;
}

const LOG_MAX = 1 << 20;

function hash(s: string): string {
  return createHash("sha256").update(s).digest("hex").slice(0, 24);
}

/** Makes dir (and its parents) with mode 0700, and makes it 0700 if it was not. */
export function privateDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = fs.statSync(dir);
  if ((st.mode & 0o777) !== 0o700) fs.chmodSync(dir, 0o700);
}

export class StateDir {
  readonly root: string;

  constructor(supervisorStateDir: string) {
    this.root = path.join(supervisorStateDir, "pi");
  }

  handoffPath(profileKey: string): string {
    return path.join(this.root, `handoff-${hash(profileKey)}.json`);
  }

  inbox(profileKey: string): string {
    return path.join(this.root, "inbox", hash(profileKey));
  }

  get logPath(): string {
    return path.join(this.root, "pi.log");
  }

  /** Writes h atomically (a 0600 temporary file renamed over it). */
  writeHandoff(h: Handoff): void {
    privateDir(this.root);
    const file = this.handoffPath(h.profileKey);
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify(h, null, 2) + "\n", { mode: 0o600 });
    fs.renameSync(tmp, file);
  }

  /**
   * Reads and removes the profile key's handoff: undefined if there is
   * none, it names another key, or it expired. A token is offered once.
   */
  takeHandoff(profileKey: string, now = Date.now()): Handoff | undefined {
    const file = this.handoffPath(profileKey);
    let raw: string;
    try {
      raw = fs.readFileSync(file, "utf8");
    } catch {
      return undefined;
    }
    fs.rmSync(file, { force: true });
    try {
      const h = JSON.parse(raw) as Handoff;
      if (h.profileKey !== profileKey || !h.token || !(now < h.expiresAt)) return undefined;
      return h;
    } catch {
      return undefined;
    }
  }

  /** The profile key recorded for a pi session, if any. */
  sessionKey(sessionId: string): string | undefined {
    try {
      const k = fs.readFileSync(path.join(this.root, `session-${hash(sessionId)}`), "utf8").trim();
      return k || undefined;
    } catch {
      return undefined;
    }
  }

  /** Records the profile key a pi session registers with. */
  setSessionKey(sessionId: string, profileKey: string): void {
    privateDir(this.root);
    fs.writeFileSync(path.join(this.root, `session-${hash(sessionId)}`), profileKey + "\n", { mode: 0o600 });
  }

  /**
   * Appends one line to the log (best effort: a log that cannot be written
   * is not an error). Past 1 MiB the log moves to pi.log.1 (one old file).
   */
  log(line: string): void {
    try {
      privateDir(this.root);
      try {
        if (fs.statSync(this.logPath).size > LOG_MAX) fs.renameSync(this.logPath, this.logPath + ".1");
      } catch {
        // no log yet
      }
      fs.appendFileSync(this.logPath, `${new Date().toISOString()} ${process.pid} ${line}\n`, { mode: 0o600 });
    } catch {
      // nowhere to say it
    }
  }
}
