// chatbus for pi: every pi session a chatbus follower with its own chat
// thread (docs/pi.md says what it does). pi loads this file, bundled as
// dist/chatbus.js, through jiti, which transforms every module it loads
// with Babel: for the whole package (the chatbus client and its Connect
// and protobuf runtime, 430 KB) that took 6 s at each start. So this entry
// stays small and loads the rest, dist/chatbus-core.mjs, with Node's own
// import(); what the rest needs of pi's host modules (pi maps those only
// for what jiti loads) it is handed here.
import { getAgentDir } from "@earendil-works/pi-coding-agent";
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";

import type { Host } from "./extension.js";

// Node's import(), out of jiti's reach (it rewrites import() in what it loads).
const nativeImport = new Function("specifier", "return import(specifier)") as (s: string) => Promise<unknown>;

export default async function chatbusForPi(pi: ExtensionAPI): Promise<void> {
  const core = (await nativeImport(new URL("./chatbus-core.mjs", import.meta.url).href)) as {
    default: (pi: ExtensionAPI, host: Host) => void;
  };
  core.default(pi, { getAgentDir, Type });
}
