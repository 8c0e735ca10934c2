// chatbus for pi: every pi session a chatbus follower with its own chat
// thread (docs/pi.md says what it does). pi loads this file, bundled as
// dist/chatbus.js, through jiti, which transforms every module it loads
// with Babel: for the whole package (the chatbus client and its Connect
// and protobuf runtime, 430 KB) that took 6 s at each start. So this entry
// stays small and loads the rest, dist/chatbus-core.mjs, with Node's own
// require() (Node 22.12 and later load ES modules with it; pi needs
// 22.19); what the rest needs of pi's host modules (pi maps those only for
// what jiti loads) it is handed here. Not import(): where jiti runs the
// entry in a vm script (a package installed from npm), a dynamic import
// has no loader to go to.
import { createRequire } from "node:module";

import { getAgentDir } from "@earendil-works/pi-coding-agent";
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";

import type { Host } from "./extension.js";

export default function chatbusForPi(pi: ExtensionAPI): void {
  // Node's own require, out of jiti's reach.
  const load = createRequire(import.meta.url);
  const core = load("./chatbus-core.mjs") as { default: (pi: ExtensionAPI, host: Host) => void };
  core.default(pi, { getAgentDir, Type });
}
