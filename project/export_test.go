package project

// Imports is imports, for the fuzz test.
var Imports = imports
