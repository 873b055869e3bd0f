package jsontok

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
)

// FuzzReader checks the reader against encoding/json's Decoder.Token on
// any input: the same tokens with the same values, each ending where
// Decoder.InputOffset says, the same error at the same token, io.EOF after
// the value exactly when the decoder's stream ends there too, More as the
// decoder's before every token, and a Skip
// that ends where the value does.
func FuzzReader(f *testing.F) {
	for _, seed := range fuzzSeeds {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		compareWithDecoder(t, data)
		checkSkip(t, data)
	})
}

// fuzzSeeds are the seed corpus of FuzzReader, and the inputs of
// TestReaderMatchesDecoder.
var fuzzSeeds = []string{
	``, ` `, `{}`, `[]`, `null`, `true`, `false`, `0`, `-0.5e+10`, `"s"`, `"\u00e9\n\"\\"`,
	`{"a":1,"b":[true,false,null],"c":{"d":"e"}}`, ` [ 1 , 2 ] `, "{\n \"a\": \"b\"\n}\n",
	`{"a":1,}`, `[1,]`, `[,1]`, `{,}`, `{"a" 1}`, `{"a":1 "b":2}`, `{1:2}`, `[1 2]`, `{"a"::1}`,
	`[1}`, `{"a":1]`, `]`, `}`, `:`, `,`, `[`, `{`, `{"a"`, `{"a":`, `[1`, `"abc`, `"a\`, `"\u12`,
	`"\x"`, "\"a\nb\"", `tru`, `nul`, `fals`, `truex`, `[truex]`, `nulll`, `-`, `-a`, `01`, `[01]`,
	`1.`, `1.e5`, `1e`, `1e+`, `[1e+]`, `.5`, `+1`, `1.5.3`, `[-]`, `{} {}`, `{} x`, `1 2`, `[] ]`,
	"\"\xff\xfe\"", "{\"\xff\":1}", `{"a\u0000b":1}`, `"\ud800"`, `"\ud83d\ude00"`, "\ufeff{}",
	strings.Repeat("[", 200) + strings.Repeat("]", 200), strings.Repeat(`{"a":`, 150) + "1" + strings.Repeat("}", 150),
	strings.Repeat("[", 300) + strings.Repeat("]", 299),
}

// compareWithDecoder reads data with a Reader and a Decoder side by side.
func compareWithDecoder(t *testing.T, data []byte) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	r := NewReader(data)
	for {
		if more, dmore := r.More(), dec.More(); more != dmore {
			t.Fatalf("%q at %d: More is %v, the decoder's %v", data, r.Offset(), more, dmore)
		}
		tok, err := r.Next()
		dtok, derr := dec.Token()
		switch {
		case errors.Is(err, ErrTrailing):
			if errors.Is(derr, io.EOF) {
				t.Fatalf("%q: ErrTrailing at %d, but the decoder's stream ends", data, r.Offset())
			}
			if c := data[r.Offset()]; c == ' ' || c == '\t' || c == '\r' || c == '\n' {
				t.Fatalf("%q: ErrTrailing at white space (%d)", data, r.Offset())
			}
			return
		case err == io.EOF:
			if derr != io.EOF {
				t.Fatalf("%q: io.EOF after the value, the decoder gives %v, %v", data, dtok, derr)
			}
			return
		case err != nil || derr != nil:
			if err == nil || derr == nil || err.Error() != derr.Error() {
				t.Fatalf("%q: error %v, the decoder's %v (token %v)", data, err, derr, dtok)
			}
			var se, dse *json.SyntaxError
			if errors.As(derr, &dse) && (!errors.As(err, &se) || se.Offset != dse.Offset) {
				t.Fatalf("%q: error %#v, the decoder's %#v", data, err, derr)
			}
			if _, again := r.Next(); again != err {
				t.Fatalf("%q: the error is not sticky: %v then %v", data, err, again)
			}
			return
		}
		if off := dec.InputOffset(); int64(tok.End) != off {
			t.Fatalf("%q: token %v ends at %d, the decoder is at %d", data, tok, tok.End, off)
		}
		if got, want := tokenValue(r, tok), dtok; got != want {
			t.Fatalf("%q: token %v is %#v, the decoder's %#v", data, tok, got, want)
		}
		if (tok.Kind == Key) != (r.state == stObjectColon) {
			t.Fatalf("%q: token %v in state %d", data, tok, r.state)
		}
	}
}

// tokenValue is t as Decoder.Token (with UseNumber) returns it.
func tokenValue(r *Reader, t Token) json.Token {
	switch t.Kind {
	case ObjectStart, ObjectEnd, ArrayStart, ArrayEnd:
		return json.Delim(r.Bytes(t)[0])
	case Key, String:
		return r.Unquote(t)
	case Number:
		return json.Number(r.Bytes(t))
	case True:
		return true
	case False:
		return false
	case Null:
		return nil
	}
	return t
}

// checkSkip skips the value of data and compares its end with what
// json.Valid and a Decoder say of it.
func checkSkip(t *testing.T, data []byte) {
	t.Helper()
	r := NewReader(data)
	first, err := r.Next()
	if err != nil {
		return
	}
	end, err := r.Skip(first)
	if err != nil {
		if json.Valid(data) {
			t.Fatalf("%q is valid, Skip fails: %v", data, err)
		}
		return
	}
	if !json.Valid(data[first.Start:end]) {
		t.Fatalf("%q: Skip gives %q, not a JSON value", data, data[first.Start:end])
	}
	if _, err := r.Next(); (err == io.EOF) != json.Valid(data) {
		t.Fatalf("%q: after Skip, %v; json.Valid says %v", data, err, json.Valid(data))
	}
}
