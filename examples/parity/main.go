// Command parity is a test to copy into your own code: it proves with
// sessiontest that a subagent forked from a session starts with exactly
// that session's state (parity) and leaves it untouched (isolation).
// The proof is the test in parity_test.go; run it with
//
//	go test ./examples/parity
package main

import "fmt"

func main() {
	fmt.Println("parity is a test you can copy: run go test ./examples/parity, and read examples/parity/parity_test.go")
}
