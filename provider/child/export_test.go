package child

// PhasesTable is phases, for the descriptor test.
var PhasesTable = phases
