package provider

// RefKindsTable is refKinds, for the descriptor test.
var RefKindsTable = refKinds

// LanesTable and LimitScopesTable are lanes and limitScopes, for the
// descriptor tests.
var (
	LanesTable       = lanes
	LimitScopesTable = limitScopes
)
