package backup

// syncsTogetherFn and syncfsFn are syncsTogether and syncfs1 (a test
// takes the other branch, or makes syncfs fail).
var (
	syncsTogetherFn = syncsTogether
	syncfsFn        = syncfs1
)
