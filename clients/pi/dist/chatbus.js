// chatbus for pi, bundled by clients/pi/scripts/build.mjs from clients/pi/src and clients/ts/src: do not edit.

// src/index.ts
import { getAgentDir } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";
var nativeImport = new Function("specifier", "return import(specifier)");
async function chatbusForPi(pi) {
  const core = await nativeImport(new URL("./chatbus-core.mjs", import.meta.url).href);
  core.default(pi, { getAgentDir, Type });
}
export {
  chatbusForPi as default
};
