package webfetch_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"

	"github.com/offshoot-dev/offshoot/tools/webfetch"
)

// The tool returns a page as Markdown, headed by what the model looks
// for. A program adds it to an agent's tools itself (offshoot.Options.Tools,
// say); here it is called as the runner calls it. Pages on this machine
// are refused unless allowed: the example's server is on loopback.
func Example() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<html><head><script>track()</script></head><body>
<h1>Naming</h1><p>One-method interfaces are named by the method plus <em>-er</em>: <a href="/io#Reader">Reader</a>.</p></body></html>`)
	}))
	defer srv.Close()

	tool, err := webfetch.New(webfetch.Options{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}})
	if err != nil {
		fmt.Println(err)
		return
	}
	args, _ := json.Marshal(map[string]string{"url": srv.URL + "/doc", "prompt": "how are interfaces named?"})
	out := tool.Call(context.Background(), nil, args)
	fmt.Println(strings.ReplaceAll(out.Text, srv.URL, "http://SERVER"))

	refused, _ := webfetch.New(webfetch.Options{}) // the default: the public internet only
	out = refused.Call(context.Background(), nil, args)
	fmt.Println(strings.ReplaceAll(out.Text, srv.URL, "http://SERVER"))
	// Output:
	// # how are interfaces named?
	// The page http://SERVER/doc (text/html, converted to Markdown), as it is, not summarized: read it for the answer.
	//
	// # Naming
	//
	// One-method interfaces are named by the method plus *-er*: [Reader](http://SERVER/io#Reader).
	// http://SERVER/doc was not fetched: 127.0.0.1 is a loopback address (this machine): web_fetch reaches only public internet addresses
}
