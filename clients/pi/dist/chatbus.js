// chatbus for pi, bundled by clients/pi/scripts/build.mjs from clients/pi/src and clients/ts/src: do not edit.

// src/index.ts
import { createRequire } from "node:module";
import { getAgentDir } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";
function chatbusForPi(pi) {
  const load = createRequire(import.meta.url);
  const core = load("./chatbus-core.mjs");
  core.default(pi, { getAgentDir, Type });
}
export {
  chatbusForPi as default
};
