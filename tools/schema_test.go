package tools_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/tools"
)

// Base is embedded: its fields are promoted into the parameters object.
type Base struct {
	RequestID string `json:"request_id,omitempty" jsonschema:"an id for tracing"`
}

type window struct {
	From time.Time  `json:"from"`
	To   *time.Time `json:"to,omitempty"`
}

type searchParams struct {
	Base
	Query   string   `json:"query" validate:"required,max=200" jsonschema:"what to look for"`
	Mode    string   `json:"mode,omitempty" validate:"omitempty,oneof=exact fuzzy"`
	Limit   int      `json:"limit,omitempty" validate:"min=1,max=50"`
	Paths   []string `json:"paths,omitempty" validate:"max=5,dive,min=1"`
	Window  window   `json:"window"`
	Owner   *string  `json:"owner,omitempty"`
	Exclude []window `json:"exclude,omitempty"`
}

type searchHit struct {
	Path  string  `json:"path"`
	Score float64 `json:"score"`
}

func TestSchemasAsSeenThroughATool(t *testing.T) {
	tool, err := tools.New("search", "Search the files.",
		func(context.Context, *tools.Invocation, searchParams) (tools.Result[[]searchHit], error) {
			return tools.Result[[]searchHit]{}, nil
		},
		tools.WithDefaults(searchParams{Mode: "fuzzy", Limit: 10, Paths: []string{"."}}),
	)
	require.NoError(t, err)

	const wantParams = `{
	  "type": "object",
	  "properties": {
	    "request_id": {"type": "string", "description": "an id for tracing"},
	    "query": {"type": "string", "description": "what to look for", "minLength": 1, "maxLength": 200},
	    "mode": {"type": "string", "enum": ["exact", "fuzzy"], "default": "fuzzy"},
	    "limit": {"type": "integer", "minimum": 1, "maximum": 50, "default": 10},
	    "paths": {"type": "array", "items": {"type": "string", "minLength": 1}, "maxItems": 5, "default": ["."]},
	    "window": {
	      "type": "object",
	      "properties": {
	        "from": {"type": "string", "format": "date-time"},
	        "to": {"type": ["null", "string"], "format": "date-time"}
	      },
	      "required": ["from"],
	      "additionalProperties": false
	    },
	    "owner": {"type": ["null", "string"]},
	    "exclude": {
	      "type": "array",
	      "items": {
	        "type": "object",
	        "properties": {
	          "from": {"type": "string", "format": "date-time"},
	          "to": {"type": ["null", "string"], "format": "date-time"}
	        },
	        "required": ["from"],
	        "additionalProperties": false
	      }
	    }
	  },
	  "required": ["query", "window"],
	  "additionalProperties": false
	}`
	assert.JSONEq(t, wantParams, string(tool.Spec().Params))

	const wantResult = `{
	  "type": "array",
	  "items": {
	    "type": "object",
	    "properties": {"path": {"type": "string"}, "score": {"type": "number"}},
	    "required": ["path", "score"],
	    "additionalProperties": false
	  }
	}`
	assert.JSONEq(t, wantResult, string(tool.Spec().Result))
}

func TestFieldsWithoutDefaultsStayRequired(t *testing.T) {
	// Without WithDefaults, required is every field without omitempty.
	tool, err := tools.New("ls", "List.", listPath)
	require.NoError(t, err)
	assert.JSONEq(t, `{
	  "type": "object",
	  "properties": {
	    "path": {"type": "string", "description": "the directory to list", "minLength": 1, "pattern": "^[\\x00-\\x7F]*$"},
	    "limit": {"type": "integer", "minimum": 1, "maximum": 5000}
	  },
	  "required": ["path"],
	  "additionalProperties": false
	}`, string(tool.Spec().Params))
}

func TestTypesWithoutSchemaAreConstructionErrors(t *testing.T) {
	type withChan struct {
		C chan int `json:"c"`
	}
	_, err := tools.New("c", "Chan.", func(context.Context, *tools.Invocation, withChan) (tools.Result[string], error) {
		return tools.Result[string]{}, nil
	})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `tools: tool "c": parameter schema: `)

	_, err = tools.New("f", "Func.", func(context.Context, *tools.Invocation, struct{}) (tools.Result[func()], error) {
		return tools.Result[func()]{}, nil
	})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `tools: tool "f": result schema: `)
}

func TestDefaultsDoNotChangeRequired(t *testing.T) {
	type readParams struct {
		Path   string `json:"path" validate:"required"`
		Offset int    `json:"offset"`
		Count  int    `json:"count"`
	}
	tool, err := tools.New("read", "Read a file.",
		func(context.Context, *tools.Invocation, readParams) (tools.Result[string], error) {
			return tools.Result[string]{}, nil
		},
		tools.WithDefaults(readParams{Count: 2000}),
	)
	require.NoError(t, err)
	assert.JSONEq(t, `{
	  "type": "object",
	  "properties": {
	    "path": {"type": "string", "minLength": 1},
	    "offset": {"type": "integer"},
	    "count": {"type": "integer", "default": 2000}
	  },
	  "required": ["path", "offset", "count"],
	  "additionalProperties": false
	}`, string(tool.Spec().Params))
}
