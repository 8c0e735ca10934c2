// Packs @chatbus/pi with its version from the repository's tags (the same
// rule as @chatbus/client: clients/ts/scripts/version.mjs): package.json is
// copied into a staging directory with that version, beside dist/chatbus.js
// and README.md, and `npm pack` runs there, so the checkout is left as it
// was. The tarball has no dependencies (the bundle carries them), so
// `pi install npm:@chatbus/pi@file:<tarball>` needs no registry.
//
//   node scripts/pack.mjs [OUT_DIR]   prints the tarball's path
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

import { version } from "../../ts/scripts/version.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const out = path.resolve(process.argv[2] ?? ROOT);

const stage = fs.mkdtempSync(path.join(os.tmpdir(), "cb-pipack-"));
try {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8"));
  pkg.version = version(ROOT);
  delete pkg.devDependencies;
  delete pkg.scripts;
  fs.writeFileSync(path.join(stage, "package.json"), JSON.stringify(pkg, null, 2) + "\n");
  fs.copyFileSync(path.join(ROOT, "README.md"), path.join(stage, "README.md"));
  fs.mkdirSync(path.join(stage, "dist"));
  for (const f of ["chatbus.js", "chatbus-core.mjs"]) fs.copyFileSync(path.join(ROOT, "dist", f), path.join(stage, "dist", f));
  fs.mkdirSync(out, { recursive: true });
  const json = execFileSync("npm", ["pack", "--json", "--pack-destination", out], { cwd: stage, encoding: "utf8" });
  console.log(path.join(out, JSON.parse(json)[0].filename));
} finally {
  fs.rmSync(stage, { recursive: true, force: true });
}
