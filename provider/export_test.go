package provider

// RefKindsTable is refKinds, for the descriptor test.
var RefKindsTable = refKinds
