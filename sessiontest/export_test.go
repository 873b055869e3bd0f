package sessiontest

// Equal is how the assertions compare two slice items, for the external
// tests.
var Equal = equal
