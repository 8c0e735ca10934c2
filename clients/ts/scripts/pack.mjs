// Packs @chatbus/client with its version from the repository's tags
// (scripts/version.mjs): package.json is copied into a staging directory
// with that version, beside the built dist/src and README.md, and `npm pack`
// runs there, so the checkout is left as it was.
//
//   npm run build && node scripts/pack.mjs [OUT_DIR]   prints the tarball's path
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

import { version } from "./version.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const out = path.resolve(process.argv[2] ?? ROOT);

if (!fs.existsSync(path.join(ROOT, "dist", "src", "index.js"))) {
  console.error("pack: dist/src/index.js is missing: run npm run build first");
  process.exit(1);
}
const stage = fs.mkdtempSync(path.join(os.tmpdir(), "cb-pack-"));
try {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8"));
  pkg.version = version();
  fs.writeFileSync(path.join(stage, "package.json"), JSON.stringify(pkg, null, 2) + "\n");
  for (const f of ["README.md"]) fs.copyFileSync(path.join(ROOT, f), path.join(stage, f));
  fs.cpSync(path.join(ROOT, "dist", "src"), path.join(stage, "dist", "src"), { recursive: true });
  fs.mkdirSync(out, { recursive: true });
  const json = execFileSync("npm", ["pack", "--json", "--pack-destination", out], { cwd: stage, encoding: "utf8" });
  console.log(path.join(out, JSON.parse(json)[0].filename));
} finally {
  fs.rmSync(stage, { recursive: true, force: true });
}
