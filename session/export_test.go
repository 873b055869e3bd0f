package session

// CommitTimeout is commitTimeout, for the tests.
const CommitTimeout = commitTimeout
