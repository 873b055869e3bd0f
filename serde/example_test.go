package serde_test

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/offshoot-dev/offshoot/serde"
)

// ListParams are the parameters of a directory-listing tool.
type ListParams struct {
	Path  string `json:"path" jsonschema:"Directory to list." validate:"required,ascii"`
	Limit int    `json:"limit,omitempty" jsonschema:"Most entries to return." validate:"omitempty,gte=1,lte=5000"`
	Sort  string `json:"sort,omitempty" validate:"omitempty,oneof=name size"`
}

func ExampleDecode() {
	p, err := serde.Decode[ListParams]([]byte(`{"path": "/src", "limit": 20}`))
	fmt.Println(p.Path, p.Limit, err)

	_, err = serde.Decode[ListParams]([]byte(`{"path": "/src", "limit": 20, "sort": "date"}`))
	var ve *serde.ValidationError
	if errors.As(err, &ve) {
		fmt.Printf("path=%q reason=%q\n", ve.Path, ve.Reason)
	}

	_, err = serde.Decode[ListParams]([]byte(`{"path": "/src", "depth": 2}`))
	fmt.Println(err)
	// Output:
	// /src 20 <nil>
	// path="sort" reason="must be one of: name size"
	// depth: unknown field; allowed: path, limit, sort
}

func ExampleDecodeInto() {
	p := ListParams{Limit: 100} // defaults
	err := serde.DecodeInto([]byte(`{"path": "/tmp"}`), &p)
	fmt.Println(p.Path, p.Limit, err)
	// Output: /tmp 100 <nil>
}

func ExampleSchema() {
	s, err := serde.Schema[ListParams]()
	if err != nil {
		panic(err)
	}
	out, _ := json.MarshalIndent(s, "", "  ")
	fmt.Println(string(out))
	// Output:
	// {
	//   "type": "object",
	//   "properties": {
	//     "path": {
	//       "type": "string",
	//       "description": "Directory to list.",
	//       "minLength": 1,
	//       "pattern": "^[\\x00-\\x7F]*$"
	//     },
	//     "limit": {
	//       "type": "integer",
	//       "description": "Most entries to return.",
	//       "minimum": 1,
	//       "maximum": 5000
	//     },
	//     "sort": {
	//       "type": "string",
	//       "enum": [
	//         "name",
	//         "size"
	//       ]
	//     }
	//   },
	//   "required": [
	//     "path"
	//   ],
	//   "additionalProperties": false
	// }
}
