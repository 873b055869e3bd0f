package anthropic_test

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

type httptestServer = httptest.Server

// newHTTPServer starts h on loopback until the test ends.
func newHTTPServer(t *testing.T, h http.Handler) *httptestServer {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}
