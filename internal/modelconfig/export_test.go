package modelconfig

// MaxBytes is the bound on a configuration file, for the external tests.
const MaxBytes = maxBytes
