package webfetch

import (
	"bytes"
	"context"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"

	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
)

// What the tool does with a body.
type kind int

const (
	kindRefused kind = iota // not read
	kindHTML                // converted to Markdown
	kindText                // returned as it is
)

// classify says what to do with a body from its Content-Type header, or,
// without one, from its first bytes; and its media type.
func classify(header string, body []byte) (kind, string) {
	mediaType, _, err := mime.ParseMediaType(header)
	if header == "" || err != nil {
		mediaType, _, _ = mime.ParseMediaType(http.DetectContentType(body))
	}
	mediaType = strings.ToLower(mediaType)
	switch {
	case mediaType == "text/html", mediaType == "application/xhtml+xml":
		return kindHTML, mediaType
	case mediaType == "text/plain", mediaType == "text/markdown", mediaType == "text/x-markdown",
		mediaType == "application/json", strings.HasPrefix(mediaType, "application/") && strings.HasSuffix(mediaType, "+json"):
		return kindText, mediaType
	}
	return kindRefused, mediaType
}

// decode returns body as UTF-8 text, from the charset its header or (for
// HTML) its first bytes name; bytes that are not valid become U+FFFD.
func decode(body []byte, header string) string {
	r, err := charset.NewReader(bytes.NewReader(body), header)
	if err == nil {
		if b, err := io.ReadAll(r); err == nil {
			body = b
		}
	}
	return strings.ToValidUTF8(string(body), "\uFFFD")
}

// toMarkdown converts an HTML page to Markdown, links made absolute
// against at. The parser refuses a page whose elements nest more than 512
// deep, which bounds the converter's recursion. Some pages take the
// parser time that grows with the square of their size (a megabyte of
// "<td>x" takes minutes): it reads the page through ctx, and stops when
// ctx ends.
func toMarkdown(ctx context.Context, page string, at *url.URL) (string, error) {
	doc, err := html.Parse(&ctxReader{ctx: ctx, r: strings.NewReader(page)})
	if err != nil {
		return "", err
	}
	conv := converter.NewConverter(converter.WithPlugins(
		base.NewBasePlugin(), commonmark.NewCommonmarkPlugin(), table.NewTablePlugin(),
	))
	md, err := conv.ConvertNode(doc, converter.WithDomain(at.String()))
	if err != nil {
		return "", err
	}
	return string(md), nil
}

// ctxReader reads r until ctx ends, in small pieces so that a reader
// calling it often is stopped soon after.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	if len(p) > 4096 {
		p = p[:4096]
	}
	return c.r.Read(p)
}

// clip cuts text to at most max characters, at a line's end when one is
// near; and whether it cut.
func clip(text string, max int) (string, bool) {
	if utf8.RuneCountInString(text) <= max {
		return text, false
	}
	n := 0
	for i := range text {
		if n == max {
			text = text[:i]
			break
		}
		n++
	}
	if nl := strings.LastIndexByte(text, '\n'); nl > len(text)*9/10 {
		text = text[:nl]
	}
	return text, true
}
