// The npm version of @chatbus/client, from the repository's tags (the same
// tags as the Go binaries and the Python package):
//
//   $CHATBUS_VERSION if set, else `git describe --tags --match 'v[0-9]*'`:
//   v1.2.3 -> 1.2.3; v1.2.3-4-gabc1234 (4 commits later) -> 1.2.4-dev.4.gabc1234
//   (a pre-release of the next patch, so it sorts after 1.2.3); no tag yet ->
//   0.0.0-dev.0.g<commit>; a dirty tree adds .dirty; no git -> the version in
//   package.json (0.0.0).
//
//   node scripts/version.mjs      prints it
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** Turns `git describe --tags --long --dirty --always` output into a semver, or undefined. */
export function fromDescribe(describe) {
  let m = /^v(\d+)\.(\d+)\.(\d+)(-(?:alpha|beta|rc)\.?\d+)?-(\d+)-g([0-9a-f]+)(-dirty)?$/.exec(describe);
  if (m) {
    const [, major, minor, patch, pre, n, sha, dirty] = m;
    const d = dirty ? ".dirty" : "";
    if (n === "0") return `${major}.${minor}.${patch}${pre ?? ""}${dirty ? (pre ? d : "-dirty") : ""}`;
    return `${major}.${minor}.${+patch + 1}-dev.${n}.g${sha}${d}`;
  }
  m = /^([0-9a-f]{4,40})(-dirty)?$/.exec(describe);
  if (m) return `0.0.0-dev.0.g${m[1]}${m[2] ? ".dirty" : ""}`;
  return undefined;
}

export function version(root = ROOT) {
  if (process.env.CHATBUS_VERSION) return process.env.CHATBUS_VERSION;
  try {
    const out = execFileSync("git", ["describe", "--tags", "--match", "v[0-9]*", "--long", "--dirty", "--always"], {
      cwd: root,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }).trim();
    const v = fromDescribe(out);
    if (v) return v;
  } catch {
    // no git, or not a checkout
  }
  return JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")).version;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(version());
