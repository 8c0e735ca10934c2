// Default locations of a chatbus supervisor's socket and bearer secret. They
// mirror the Go package github.com/chatbus/chatbus/paths. On Linux:
//
//   socket: $XDG_RUNTIME_DIR/chatbus/<profile>/supervisor.sock, else
//           ~/.cache/chatbus/run/<profile>/supervisor.sock, else
//           /tmp/chatbus-<uid>/<profile>/supervisor.sock
//   secret: $XDG_STATE_HOME/chatbus/<profile>/secret, else
//           ~/.local/state/chatbus/<profile>/secret, else
//           /tmp/chatbus-<uid>/<profile>/state/secret
//
// On macOS the same XDG variables when set; else the socket under $TMPDIR
// (the user's own, 0700): $TMPDIR/chatbus/<profile>/supervisor.sock, and the
// secret in ~/Library/Application Support/chatbus/<profile>/secret.

import * as os from "node:os";
import * as path from "node:path";

export const DEFAULT_PROFILE = "default";

/** The longest Unix socket path Linux accepts (sizeof(sun_path) - 1). */
export const MAX_SOCKET_PATH = 107;

/** The longest Unix socket path macOS accepts (its sun_path is 104 bytes). */
export const MAX_SOCKET_PATH_MACOS = 103;

/** The longest Unix socket path `platform` (a process.platform) accepts. */
export function maxSocketPath(platform: string = process.platform): number {
  return platform === "darwin" ? MAX_SOCKET_PATH_MACOS : MAX_SOCKET_PATH;
}

const profileRE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** The files of one profile. */
export interface Paths {
  profile: string;
  socket: string;
  secretFile: string;
  stateDir: string;
}

/**
 * Returns the default paths of `profile` ("default" if empty). `env` defaults
 * to process.env, `uid` to process.getuid() and `platform` to
 * process.platform; they are parameters so that tests can pin them.
 */
export function defaultPaths(
  profile?: string,
  env: Record<string, string | undefined> = process.env,
  uid: number = process.getuid?.() ?? 0,
  platform: string = process.platform,
): Paths {
  profile ||= DEFAULT_PROFILE;
  if (!profileRE.test(profile)) {
    throw new Error(
      `profile ${JSON.stringify(profile)}: must be 1-64 characters of letters, digits, '.', '_' or '-', starting with a letter or digit`,
    );
  }
  const home = env.HOME ?? "";
  const tmp = path.join(os.tmpdir(), `chatbus-${uid}`, profile);
  const macOS = platform === "darwin";
  let runtimeDir: string;
  if (env.XDG_RUNTIME_DIR) runtimeDir = path.join(env.XDG_RUNTIME_DIR, "chatbus", profile);
  else if (macOS && env.TMPDIR) runtimeDir = path.join(env.TMPDIR, "chatbus", profile);
  else if (!macOS && home) runtimeDir = path.join(home, ".cache", "chatbus", "run", profile);
  else runtimeDir = tmp;
  let stateDir: string;
  if (env.XDG_STATE_HOME) stateDir = path.join(env.XDG_STATE_HOME, "chatbus", profile);
  else if (macOS && home) stateDir = path.join(home, "Library", "Application Support", "chatbus", profile);
  else if (home) stateDir = path.join(home, ".local", "state", "chatbus", profile);
  else stateDir = path.join(tmp, "state");
  return {
    profile,
    socket: path.join(runtimeDir, "supervisor.sock"),
    secretFile: path.join(stateDir, "secret"),
    stateDir,
  };
}

/**
 * Returns the absolute socket path, checked against the platform's limit
 * (107 bytes on Linux, 103 on macOS). (For @grpc/grpc-js and other gRPC
 * stacks the target is `unix:///abs/path`; `unix://rel` is read as an
 * authority, not a relative path.)
 */
export function checkSocketPath(socket: string, platform: string = process.platform): string {
  const abs = path.resolve(socket);
  const n = Buffer.byteLength(abs);
  const max = maxSocketPath(platform);
  if (n > max) {
    throw new Error(`socket path ${abs} is ${n} bytes; Unix sockets allow at most ${max} here`);
  }
  return abs;
}
