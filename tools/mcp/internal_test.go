package mcp

import (
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestToolsWithoutAnObjectSchemaAreLeftOut(t *testing.T) {
	s := &server{name: "odd"}
	list := []*sdk.Tool{
		{Name: "fine", Description: "Fine.", InputSchema: map[string]any{"type": "object"}},
		{Name: "listy", Description: "x", InputSchema: []any{"a"}},
		{Name: "none", Description: "x"},
		{Name: "text", Description: "x", InputSchema: "object"},
		{Name: "output", Description: "x", InputSchema: map[string]any{"type": "object"}, OutputSchema: true},
	}
	got, skipped := newTools(s, list)
	require.Len(t, got, 2)
	assert.Equal(t, "mcp__odd__fine", got[0].Spec().Name)
	assert.JSONEq(t, `{}`, string(got[1].Spec().Result), "an output schema that is not an object is not passed on")
	require.Len(t, skipped, 3)
	assert.Equal(t, `MCP server "odd": offers the tool "listy" without an input schema that is a JSON object; the tool is left out`, skipped[0].Error())
}

func TestResultText(t *testing.T) {
	tests := []struct {
		name string
		res  *sdk.CallToolResult
		want string
	}{
		{"texts in order", &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "a"}, &sdk.TextContent{Text: "b"}}}, "a\nb"},
		{"nothing", &sdk.CallToolResult{}, "The tool finished without output."},
		{"an error without words", &sdk.CallToolResult{IsError: true}, "The tool failed without saying why."},
		{"audio", &sdk.CallToolResult{Content: []sdk.Content{&sdk.AudioContent{MIMEType: "audio/wav", Data: make([]byte, 3<<20)}}},
			"[The tool returned audio (audio/wav, 3.0 MB), which cannot be shown here.]"},
		{"a resource link", &sdk.CallToolResult{Content: []sdk.Content{&sdk.ResourceLink{URI: "file:///r.md", Name: "readme"}}},
			"[The tool pointed to readme: file:///r.md]"},
		{"a bare resource link", &sdk.CallToolResult{Content: []sdk.Content{&sdk.ResourceLink{URI: "file:///r.md"}}},
			"[The tool pointed to file:///r.md]"},
		{"an embedded text resource", &sdk.CallToolResult{Content: []sdk.Content{&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///a", Text: "contents"}}}},
			"contents"},
		{"an embedded binary resource", &sdk.CallToolResult{Content: []sdk.Content{&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///a.pdf", MIMEType: "application/pdf", Blob: make([]byte, 10)}}}},
			"[The tool returned the file file:///a.pdf (application/pdf, 10 bytes), which cannot be shown here.]"},
		{"an image of unknown type", &sdk.CallToolResult{Content: []sdk.Content{&sdk.ImageContent{Data: []byte{1}}}},
			"[The tool returned an image (unknown type, 1 bytes), which cannot be shown here.]"},
		{"structured content when there is no text", &sdk.CallToolResult{StructuredContent: map[string]any{"n": 1}}, `{"n":1}`},
		{"text wins over structured content", &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "n is 1"}}, StructuredContent: map[string]any{"n": 1}}, "n is 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, resultText(tt.res))
		})
	}
}

func TestLongResultsAreCut(t *testing.T) {
	long := strings.Repeat("é", maxResult) // two bytes each
	got := resultText(&sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: long}}})
	body, note, ok := strings.Cut(got, "\n[")
	require.True(t, ok)
	assert.Equal(t, maxResult, len(body), "cut on a character boundary")
	assert.True(t, strings.HasPrefix(long, body))
	assert.Equal(t, "The output was cut here: the tool returned 195 KB; only the first 97 KB are shown.]", note)
}

func TestTailKeepsTheEnd(t *testing.T) {
	tl := &tail{max: 10}
	_, _ = tl.Write([]byte("0123456789abc"))
	assert.Equal(t, "3456789abc", tl.String())
	_, _ = tl.Write([]byte("\nde"))
	assert.Equal(t, "6789abc de", tl.String())
	assert.Equal(t, "", (*tail)(nil).String())
}

func TestExpand(t *testing.T) {
	env := map[string]string{"A": "1", "EMPTY": ""}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	tests := []struct{ in, want, err string }{
		{"plain", "plain", ""},
		{"${A}", "1", ""},
		{"x${A}y${A}z", "x1y1z", ""},
		{"${B:-two words}", "two words", ""},
		{"${B:-}", "", ""},
		{"${EMPTY}", "", ""},
		{"${EMPTY:-d}", "d", ""},
		{"${A:-d}", "1", ""},
		{"${B:-a:-b}", "a:-b", ""},
		{"$A ${}", "$A ${}", ""},
		{"${A", "${A", ""},
		{"${A}${", "1${", ""},
		{"${B}", "", "environment variable B is not set; set it, or give a default with ${B:-value}"},
	}
	for _, tt := range tests {
		got, err := expand(tt.in, lookup)
		if tt.err != "" {
			assert.EqualError(t, err, tt.err, tt.in)
			continue
		}
		require.NoError(t, err, tt.in)
		assert.Equal(t, tt.want, got, tt.in)
	}
}
