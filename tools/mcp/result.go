package mcp

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxResult bounds the text of one tool result the model is shown, in
// bytes; longer output is cut with a note saying so.
const maxResult = 100_000

// resultText is what the model reads of a tool's result: its text content
// in order, a plain-words placeholder for each piece it cannot read
// (images, audio, binary files), the structured content as JSON when there
// is nothing else, and a sentence when there is nothing at all.
func resultText(res *sdk.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if p := contentText(c); p != "" {
			parts = append(parts, p)
		}
	}
	if len(parts) == 0 && res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil && string(b) != "null" {
			parts = append(parts, string(b))
		}
	}
	text := strings.Join(parts, "\n")
	if strings.TrimSpace(text) == "" {
		if res.IsError {
			return "The tool failed without saying why."
		}
		return "The tool finished without output."
	}
	return clip(text, maxResult)
}

// contentText words one piece of content.
func contentText(c sdk.Content) string {
	switch c := c.(type) {
	case *sdk.TextContent:
		return c.Text
	case *sdk.ImageContent:
		return fmt.Sprintf("[The tool returned an image (%s), which cannot be shown here.]", kind(c.MIMEType, len(c.Data)))
	case *sdk.AudioContent:
		return fmt.Sprintf("[The tool returned audio (%s), which cannot be shown here.]", kind(c.MIMEType, len(c.Data)))
	case *sdk.ResourceLink:
		if c.Name != "" && c.Name != c.URI {
			return fmt.Sprintf("[The tool pointed to %s: %s]", c.Name, c.URI)
		}
		return fmt.Sprintf("[The tool pointed to %s]", c.URI)
	case *sdk.EmbeddedResource:
		r := c.Resource
		if r == nil {
			return ""
		}
		if r.Text != "" {
			return r.Text
		}
		return fmt.Sprintf("[The tool returned the file %s (%s), which cannot be shown here.]", r.URI, kind(r.MIMEType, len(r.Blob)))
	case nil:
		return ""
	default:
		return "[The tool returned content of a kind that cannot be shown here.]"
	}
}

// kind words a MIME type and a size: "image/png, 12 KB".
func kind(mime string, n int) string {
	if mime == "" {
		mime = "unknown type"
	}
	return mime + ", " + size(n)
}

// size words a byte count.
func size(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%d KB", n>>10)
	default:
		return fmt.Sprintf("%d bytes", n)
	}
}

// clip cuts s to at most max bytes, on a character boundary, and says so.
func clip(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("\n[The output was cut here: the tool returned %s; only the first %s are shown.]", size(len(s)), size(cut))
}
