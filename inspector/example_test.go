package inspector_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/cookiejar"

	"github.com/offshoot-dev/offshoot/inspector"
	"github.com/offshoot-dev/offshoot/store"
)

// A program that keeps its sessions in a store serves the inspector over
// it on a loopback port, and gives the person who runs it the URL.
func ExampleNew() {
	ctx := context.Background()
	st := store.NewMemory() // the program's store: store/sqlite, store/postgres…
	_ = st.Create(ctx, store.Header{ID: "chat-1", Tags: map[string]string{"offshoot.question": "What ships on Friday?"}})

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Println(err)
		return
	}
	ui, err := inspector.New(st, inspector.Options{Host: ln.Addr().String()})
	if err != nil {
		fmt.Println(err)
		return
	}
	srv := &http.Server{Handler: ui}
	go srv.Serve(ln)
	defer srv.Close()

	// What the person does: open ui.URL() in a browser.
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar}
	resp, err := browser.Get(ui.URL())
	if err != nil {
		fmt.Println(err)
		return
	}
	resp.Body.Close()
	browser.CloseIdleConnections()
	fmt.Println(resp.Status)
	// Output: 200 OK
}
