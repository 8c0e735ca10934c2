package paths

// nativeLayout: the XDG base directories.
var nativeLayout layout = xdgLayout

// MaxSocketPath is the longest Unix socket path Linux accepts
// (sizeof(sun_path) - 1).
const MaxSocketPath = 107
