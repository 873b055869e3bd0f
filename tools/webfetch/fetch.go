package webfetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/tools"
)

// params are the model's arguments.
type params struct {
	// URL is the page to fetch.
	URL string `json:"url" validate:"required,max=2000" jsonschema:"the full URL of the page, http or https, such as https://go.dev/doc/"`
	// Prompt is what the model looks for in the page.
	Prompt string `json:"prompt,omitempty" validate:"max=10000" jsonschema:"what you are looking for in the page"`
}

// result is what a call gives the program; the model reads it in words
// (the message).
type result struct {
	// URL is the address fetched last, after redirects.
	URL string `json:"url"`
	// Status is the HTTP status of the last response.
	Status int `json:"status"`
	// ContentType is its media type, without parameters.
	ContentType string `json:"content_type,omitempty"`
	// Bytes is how many bytes of its body were read.
	Bytes int64 `json:"bytes,omitempty"`
	// Cut is set when the body or the text was cut to the bounds.
	Cut bool `json:"cut,omitempty"`
	// Redirect is the URL on another host the page redirects to, not
	// followed.
	Redirect string `json:"redirect,omitempty"`
}

// fetcher fetches pages for the tool.
type fetcher struct {
	client    *http.Client
	timeout   time.Duration
	maxBytes  int64
	userAgent string
	reader    model.Model // Options.Model
}

// tooManyRedirects stops a chain of redirects.
var tooManyRedirects = fmt.Errorf("it redirected more than %d times; give the URL the redirects end at, or another page", maxRedirects)

// call is the tool's handler.
func (f *fetcher) call(ctx context.Context, _ *tools.Invocation, p params) (tools.Result[result], error) {
	u, err := parseURL(p.URL)
	if err != nil {
		return tools.Result[result]{}, &tools.ValidationError{Err: fmt.Errorf("url: %w", err)}
	}
	fctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(fctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return tools.Result[result]{}, &tools.ValidationError{Err: fmt.Errorf("url: %w", err)}
	}
	req.Header.Set("User-Agent", f.userAgent)
	req.Header.Set("Accept", "text/markdown, text/html;q=0.9, application/xhtml+xml;q=0.9, text/plain;q=0.8, application/json;q=0.7, */*;q=0.1")
	resp, err := f.client.Do(req)
	if err != nil {
		return f.failed(ctx, fctx, u, err)
	}
	defer resp.Body.Close()
	res := result{URL: resp.Request.URL.String(), Status: resp.StatusCode}
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		return redirected(u, resp, res)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return tools.Failed[result](fmt.Sprintf("%s answered %s: there is no page to read there", res.URL, resp.Status)), nil
	}
	header := resp.Header.Get("Content-Type")
	body, cut, err := readBody(resp.Body, f.maxBytes)
	res.Bytes, res.Cut = int64(len(body)), cut
	if err != nil {
		return f.failed(ctx, fctx, resp.Request.URL, err)
	}
	kind, mediaType := classify(header, body)
	res.ContentType = mediaType
	if kind == kindRefused {
		return tools.Failed[result](fmt.Sprintf("%s is %s, which web_fetch does not read: it reads HTML, plain text, Markdown and JSON pages", res.URL, describeType(mediaType))), nil
	}
	text := decode(body, header)
	how := ""
	if kind == kindHTML {
		md, err := toMarkdown(fctx, text, resp.Request.URL)
		if err != nil && ctx.Err() != nil {
			return tools.Result[result]{}, ctx.Err()
		}
		if err != nil && fctx.Err() != nil {
			return tools.Failed[result](fmt.Sprintf("%s could not be converted to Markdown within %s: the page is too large or too intricate; try another page", res.URL, f.timeout)), nil
		}
		if err != nil {
			return tools.Failed[result](fmt.Sprintf("%s is HTML that could not be converted to Markdown: %v", res.URL, err)), nil
		}
		text, how = md, ", converted to Markdown"
	}
	text, textCut := clip(text, maxChars)
	res.Cut = res.Cut || textCut
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n", oneLine(p.Prompt, "the page"))
	if f.reader != nil {
		answer, err := read(ctx, f.reader, res.URL, mediaType+how, text, p.Prompt)
		if err == nil {
			fmt.Fprintf(&b, "The page %s (%s%s), read for your prompt by a small model. Its answer:\n\n%s", res.URL, mediaType, how, answer)
			if cut || textCut {
				b.WriteString("\n\n[The page is longer than was read: the small model read only its beginning.]")
			}
			return tools.OK(b.String(), res), nil
		}
		if ctx.Err() != nil {
			return tools.Result[result]{}, ctx.Err()
		}
		fmt.Fprintf(&b, "The small model that reads pages could not read this one (%s), so here is the page itself.\n", oneLine(err.Error(), "it failed"))
	}
	fmt.Fprintf(&b, "The page %s (%s%s), as it is, not summarized: read it for the answer.\n\n", res.URL, mediaType, how)
	b.WriteString(text)
	if cut {
		fmt.Fprintf(&b, "\n\n[The page is longer than %s: only its first %s were read.]", byteSize(f.maxBytes), byteSize(f.maxBytes))
	}
	if textCut {
		fmt.Fprintf(&b, "\n\n[The text is cut at %d characters; the rest of the page is not shown.]", maxChars)
	}
	return tools.OK(b.String(), res), nil
}

// failed words a fetch that got no page: its own timeout, a refused
// address, too many redirects, or the network's error. When the call's
// own ctx ended (the run is stopping), that is the error.
func (f *fetcher) failed(ctx, fctx context.Context, u *url.URL, err error) (tools.Result[result], error) {
	if ctx.Err() != nil {
		return tools.Result[result]{}, ctx.Err()
	}
	var ae *addressError
	switch {
	case errors.As(err, &ae):
		return tools.Failed[result](fmt.Sprintf("%s was not fetched: %v", u.Redacted(), ae)), nil
	case errors.Is(err, tooManyRedirects):
		return tools.Failed[result](fmt.Sprintf("%s was not fetched: %v", u.Redacted(), tooManyRedirects)), nil
	case fctx.Err() != nil:
		return tools.Failed[result](fmt.Sprintf("%s did not answer within %s; try again later, or another page", u.Redacted(), f.timeout)), nil
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return tools.Failed[result](fmt.Sprintf("%s could not be fetched: %v", u.Redacted(), err)), nil
}

// redirected words a redirect that was not followed: to another host, or
// without a usable Location.
func redirected(from *url.URL, resp *http.Response, res result) (tools.Result[result], error) {
	loc, err := resp.Location()
	if err != nil {
		return tools.Failed[result](fmt.Sprintf("%s answered %s without a usable new location", res.URL, resp.Status)), nil
	}
	res.Redirect = loc.String()
	if _, err := parseURL(res.Redirect); err != nil {
		return tools.Failed[result](fmt.Sprintf("%s redirects to %s, which is not fetched: %v", res.URL, oneLine(res.Redirect, ""), err)), nil
	}
	return tools.OK(fmt.Sprintf("%s redirects to %s, on another host, which was not followed: to read it, call web_fetch again with that URL.", res.URL, res.Redirect), res), nil
}

// checkRedirect is the client's redirect policy: at most maxRedirects,
// each to an http or https URL without credentials; to another host the
// redirect is not followed but returned (redirected words it).
func checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > maxRedirects {
		return tooManyRedirects
	}
	if _, err := parseURL(req.URL.String()); err != nil {
		return fmt.Errorf("it redirects to %s: %w", req.URL.Redacted(), err)
	}
	if !sameHost(req.URL.Hostname(), via[0].URL.Hostname()) {
		return http.ErrUseLastResponse
	}
	return nil
}

// parseURL checks a URL the tool may fetch: http or https, with a host,
// without a user name or password, of at most maxURLLength bytes.
func parseURL(raw string) (*url.URL, error) {
	raw = strings.TrimSpace(raw)
	if len(raw) > maxURLLength {
		return nil, fmt.Errorf("the URL has %d characters, more than the %d allowed", len(raw), maxURLLength)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%q is not a URL; give a full http or https URL such as https://go.dev/doc/", oneLine(raw, ""))
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
	case "":
		return nil, fmt.Errorf("%q has no scheme; give a full http or https URL such as https://%s", oneLine(raw, ""), oneLine(strings.TrimPrefix(raw, "//"), ""))
	default:
		return nil, fmt.Errorf("%s URLs are not fetched; give an http or https URL", oneLine(u.Scheme, ""))
	}
	if u.User != nil {
		return nil, errors.New("the URL holds a user name or password; web_fetch sends no credentials, give the URL without them")
	}
	if u.Opaque != "" || u.Hostname() == "" {
		return nil, fmt.Errorf("%q names no host; give a full URL such as https://go.dev/doc/", oneLine(raw, ""))
	}
	u.Scheme = strings.ToLower(u.Scheme)
	u.Fragment, u.RawFragment = "", ""
	return u, nil
}

// sameHost reports whether two host names are one host: equal, or a name
// and its www. form.
func sameHost(a, b string) bool {
	norm := func(h string) string {
		h = strings.TrimSuffix(strings.ToLower(h), ".")
		return strings.TrimPrefix(h, "www.")
	}
	return norm(a) == norm(b)
}

// readBody reads at most maxBytes of body, and whether there was more.
func readBody(body io.Reader, maxBytes int64) ([]byte, bool, error) {
	b, err := io.ReadAll(io.LimitReader(body, maxBytes+1))
	if int64(len(b)) > maxBytes {
		return b[:maxBytes], true, nil
	}
	return b, false, err
}

// oneLine is s on one line, of printable characters, cut to 300
// characters; or def when s is blank.
func oneLine(s, def string) string {
	s = strings.Join(strings.FieldsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || !unicode.IsPrint(r) }), " ")
	if s == "" {
		return def
	}
	if r := []rune(s); len(r) > 300 {
		return string(r[:300]) + "…"
	}
	return s
}

// describeType words a media type for the model.
func describeType(mediaType string) string {
	if mediaType == "" {
		return "a file of no known type"
	}
	if ext, _ := mime.ExtensionsByType(mediaType); len(ext) > 0 {
		return fmt.Sprintf("%s (a %s file)", mediaType, ext[0])
	}
	return mediaType
}

// byteSize words a number of bytes: "5 MiB", "512 KiB", "812 bytes".
func byteSize(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
