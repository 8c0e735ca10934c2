// Builds the package's one file, dist/chatbus.js: src/ and the chatbus
// TypeScript client (clients/ts/src, with its Connect and protobuf runtime)
// bundled by esbuild, so that `pi install <path>` (which installs no
// dependencies) and a packed tarball (which has none) both work. pi
// provides @earendil-works/* and typebox, which stay imports. The file is
// committed like generated code: `make generate` rebuilds it and
// `make check-generate` fails when it is out of date.
//
//   node scripts/build.mjs            writes dist/chatbus.js
//   node scripts/build.mjs --tests    also bundles test/*.test.ts into build/test (for node --test)
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

import * as esbuild from "esbuild";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
process.chdir(ROOT);

const common = {
  bundle: true,
  platform: "node",
  target: "node22",
  format: "esm",
  charset: "utf8",
  legalComments: "inline",
  logLevel: "warning",
  alias: { "@chatbus/client": "../ts/src/index.ts" },
  external: ["@earendil-works/*", "typebox"],
};

const banner = "// chatbus for pi, bundled by clients/pi/scripts/build.mjs from clients/pi/src and clients/ts/src: do not edit.";
// The entry pi loads (through jiti), and the rest (loaded by Node): see src/index.ts.
await esbuild.build({ ...common, entryPoints: ["src/index.ts"], outfile: "dist/chatbus.js", banner: { js: banner } });
await esbuild.build({ ...common, entryPoints: ["src/core.ts"], outfile: "dist/chatbus-core.mjs", banner: { js: banner } });
const core = fs.readFileSync("dist/chatbus-core.mjs", "utf8");
const hostImport = /^import .* from "(@earendil-works\/[^"]*|typebox)";$/m.exec(core);
if (hostImport) {
  console.error(`dist/chatbus-core.mjs imports ${hostImport[1]}, which Node cannot resolve for pi's packages: hand it over in src/index.ts`);
  process.exit(1);
}

if (process.argv.includes("--tests")) {
  const tests = fs.readdirSync("test").filter((f) => f.endsWith(".test.ts")).map((f) => path.join("test", f));
  fs.rmSync("build", { recursive: true, force: true });
  await esbuild.build({ ...common, entryPoints: tests, outdir: "build/test", sourcemap: "inline" });
}
