package anthropic

import (
	"io"

	"github.com/offshoot-dev/offshoot/model/internal/httpcall"
)

// maxEvent bounds the data of one server-sent event: as much as a whole
// answer may hold (maxBody) and its envelope, so that one big piece — a
// tool call whose arguments come in one event — reaches the caller, which
// may refuse it as one failed call, instead of failing the request.
const maxEvent = maxBody + 64<<10

// newEventReader reads the server-sent events of r, up to maxEvent each.
func newEventReader(r io.Reader) *httpcall.EventReader {
	return httpcall.NewEventReader(r, maxEvent)
}
