package webfetch

import (
	"context"
	"fmt"
	"net/http"
	"net/netip"
	"time"

	"github.com/offshoot-dev/offshoot/internal/version"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/tools"
)

// Bounds of a fetch.
const (
	// defaultTimeout is how long a whole fetch may take when Options do
	// not say: connecting, redirects and reading the body.
	defaultTimeout = 30 * time.Second
	// defaultMaxBytes is the most bytes of a body read when Options do
	// not say; the rest is cut.
	defaultMaxBytes = 5 << 20
	// maxRedirects is the most redirects followed.
	maxRedirects = 5
	// maxChars is the most characters of Markdown the model reads.
	maxChars = 100_000
	// maxURLLength is the longest url the model may give, as Claude
	// Code's.
	maxURLLength = 2000
)

// Options configure the web_fetch tool (New). The zero value fetches for
// 30 seconds at most, reads 5 MiB of a body at most, and reaches public
// internet addresses only.
type Options struct {
	// Timeout is how long a whole fetch may take, redirects and the
	// body's reading included: 30 seconds when zero.
	Timeout time.Duration
	// MaxBytes is the most bytes of a response's body read (after
	// decompression); the rest is cut and the model told so. 5 MiB when
	// zero.
	MaxBytes int64
	// Allow are addresses the tool may reach though they are not on the
	// public internet: 127.0.0.0/8 and ::1/128 for a server on this
	// machine (tests do), 10.0.0.0/8 for an intranet. Nothing when empty.
	Allow []netip.Prefix
	// Model, when set, reads the page for the calling model, as Claude
	// Code's WebFetch has a small, fast model do: it is given the page and
	// the call's prompt, and its answer is the result, so a long page does
	// not fill the caller's context (offshoot run and chat give the light
	// model). What it spends counts for the calling evaluation (its
	// ChildUsage and budget). When it fails, the page itself is the
	// result. Nil: the page itself, whole, is the result.
	Model model.Model
}

// New returns the web_fetch tool, or what in opts is wrong. The tool is
// safe for concurrent use and keeps no connection open between calls,
// so it needs no closing.
func New(opts Options) (tools.Tool, error) {
	if opts.Timeout < 0 {
		return nil, fmt.Errorf("webfetch: Options.Timeout is %s; give a positive duration, or 0 for %s", opts.Timeout, defaultTimeout)
	}
	if opts.MaxBytes < 0 {
		return nil, fmt.Errorf("webfetch: Options.MaxBytes is %d; give a positive number of bytes, or 0 for %d (5 MiB)", opts.MaxBytes, defaultMaxBytes)
	}
	for _, p := range opts.Allow {
		if !p.IsValid() {
			return nil, fmt.Errorf("webfetch: Options.Allow holds an invalid prefix; give prefixes such as 127.0.0.0/8")
		}
	}
	f := newFetcher(opts, lookupHost)
	f.reader = opts.Model
	return f.tool()
}

// tool is the web_fetch tool over f.
func (f *fetcher) tool() (tools.Tool, error) {
	return tools.New("web_fetch", describe(f.timeout, f.reader != nil), f.call,
		tools.ConcurrentSafe(), tools.ExcludeValue(),
		tools.WithExamples(tools.Example[params, result]{
			Description: "read a page of documentation",
			Input:       params{URL: "https://go.dev/doc/effective_go", Prompt: "how are interfaces named?"},
			Output:      result{URL: "https://go.dev/doc/effective_go", Status: 200, ContentType: "text/html"},
		}))
}

// newFetcher returns the fetcher of opts, resolving names with lookup.
func newFetcher(opts Options, lookup func(ctx context.Context, host string) ([]netip.Addr, error)) *fetcher {
	f := &fetcher{timeout: defaultTimeout, maxBytes: defaultMaxBytes, userAgent: "offshoot/" + version.Get() + " (web_fetch tool)"}
	if opts.Timeout > 0 {
		f.timeout = opts.Timeout
	}
	if opts.MaxBytes > 0 {
		f.maxBytes = opts.MaxBytes
	}
	d := &dialer{allow: append([]netip.Prefix(nil), opts.Allow...), lookup: lookup}
	f.client = &http.Client{
		Transport: &http.Transport{
			Proxy:                  nil, // never the environment's
			DialContext:            d.dial,
			DisableKeepAlives:      true,
			MaxResponseHeaderBytes: 1 << 20,
			ForceAttemptHTTP2:      true,
		},
		CheckRedirect: checkRedirect,
		Jar:           nil, // no cookies
	}
	return f
}

// describe is the tool's description for the model; read says whether a
// small model reads the page for it.
func describe(timeout time.Duration, read bool) string {
	how := fmt.Sprintf("the page is returned whole (at most %d characters), not summarized, with your prompt above it; read it for the answer", maxChars)
	if read {
		how = "a small model reads the page and answers your prompt from it, and you get its answer, not the page; " +
			"ask precisely (\"the exact flags of the build command\", not \"tell me about it\"); without a prompt you get what the page holds"
	}
	return fmt.Sprintf("Fetch a web page by its URL and read it as Markdown (HTML is converted; plain text, Markdown and JSON come as they are; "+
		"images, PDFs and other files are refused). Give the full http or https URL, and in prompt what you are looking for: "+
		"%s. "+
		"Only public internet addresses are reached; a redirect to another host is not followed but returned, for you to fetch if you wish. "+
		"A fetch takes at most %s. Do not put secrets or data from your files in a URL.", how, timeout)
}
