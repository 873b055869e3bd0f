package sessiontest_test

import (
	"fmt"

	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/sessiontest"
)

func ExampleDiff() {
	s, _ := session.New()
	defer s.Close()
	_ = s.Dispatch(ctx, Note{"a"})
	before := s.Snapshot()
	_ = s.Dispatch(ctx, Note{"b"})

	fmt.Print(sessiontest.Diff(before, s.Snapshot()))
	// Output:
	// slice sessiontest_test.Note: 1 items vs 2 items
	//   + [1] {"Text":"b"}
}
