// The package without its entry (src/index.ts): bundled as
// dist/chatbus-core.mjs, loaded by Node itself. It imports nothing of pi's
// at run time: the entry hands it what it needs (Host).
export { default } from "./extension.js";
