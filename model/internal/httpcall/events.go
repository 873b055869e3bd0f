package httpcall

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// EventReader reads server-sent events (text/event-stream): lines of
// "field: value", an event ending at a blank line. Only data fields count
// (several are joined by newlines); comments (":…"), event, id and retry
// fields are skipped.
type EventReader struct {
	r    *bufio.Reader
	data []byte // the current event's data, reused
	max  int    // the longest event or line accepted
}

// NewEventReader reads the events of r, refusing an event or a line
// longer than max bytes.
func NewEventReader(r io.Reader, max int) *EventReader {
	return &EventReader{r: bufio.NewReaderSize(r, 16<<10), max: max}
}

// Max is the longest event or line the reader accepts.
func (e *EventReader) Max() int { return e.max }

// Next returns the data of the next event with data, valid until the next
// call, or io.EOF at the end of the stream. An event cut by the end of the
// stream is returned as it is.
func (e *EventReader) Next() ([]byte, error) {
	e.data = e.data[:0]
	hasData := false
	for {
		line, err := e.line()
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		if len(line) == 0 {
			if hasData {
				return e.data, nil
			}
			if err != nil {
				return nil, io.EOF
			}
			continue
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		if len(field) == 0 {
			continue // a comment, such as a keep-alive
		}
		if string(field) == "data" {
			value = bytes.TrimPrefix(value, []byte(" "))
			if hasData {
				e.data = append(e.data, '\n')
			}
			if len(e.data)+len(value) > e.max {
				return nil, fmt.Errorf("an event is larger than %d KiB", e.max>>10)
			}
			e.data = append(e.data, value...)
			hasData = true
		}
		if err != nil { // the stream ended without a final newline
			if hasData {
				return e.data, nil
			}
			return nil, io.EOF
		}
	}
}

// line returns the next line without its end (\n, \r\n), valid until the
// next call; at the end of the stream, the last line and io.EOF.
func (e *EventReader) line() ([]byte, error) {
	line, err := e.r.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		long := append([]byte(nil), line...)
		for errors.Is(err, bufio.ErrBufferFull) {
			if len(long) > e.max {
				return nil, fmt.Errorf("a line of the stream is longer than %d KiB", e.max>>10)
			}
			line, err = e.r.ReadSlice('\n')
			long = append(long, line...)
		}
		if len(long) > e.max {
			return nil, fmt.Errorf("a line of the stream is longer than %d KiB", e.max>>10)
		}
		line = long
	}
	line = bytes.TrimSuffix(line, []byte("\n"))
	line = bytes.TrimSuffix(line, []byte("\r"))
	return line, err
}
