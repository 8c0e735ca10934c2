package paths

// nativeLayout: $TMPDIR and ~/Library/Application Support.
var nativeLayout layout = macOSLayout

// MaxSocketPath is the longest Unix socket path macOS accepts
// (sizeof(sun_path) - 1: its sun_path is 104 bytes).
const MaxSocketPath = 103
