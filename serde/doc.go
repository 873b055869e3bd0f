// Package serde is offshoot's JSON layer: strict decoding with validation,
// JSON Schemas inferred from Go types, lenient extraction of JSON from model
// output, and the registry of stable type names.
//
// Decoding is strict because its input usually comes from a model: Decode,
// DecodeInto and DecodeValue reject unknown members, trailing data and
// values of the wrong JSON type, then run the `validate` struct tags of
// github.com/go-playground/validator/v10. Unlike encoding/json, a struct's
// members are matched by their exact JSON names ("PATH" is an unknown
// field, not "path"), and a key given twice in one object is an error
// ("path: appears twice"), at every level, in maps too. Every problem with a value is a
// *ValidationError carrying the JSON path of the value and a reason a model
// can act on ("steps[2].title: must be at most 160 characters"); several
// are joined with errors.Join, and errors.As finds the first. Packages
// above serde (tools, prompt) wrap these errors with their own context.
//
// A type can check its own values beyond what tags can say — a plan whose
// step ids must be unique, a list that must be sorted — with a method
//
//	Validate() error
//
// on the type or its pointer. Decode, DecodeInto and DecodeValue call it on
// the decoded value once strict decoding and the tags passed, and return
// its error as is (return *ValidationError values to keep the paths). So
// whatever decodes through serde — tool arguments, snapshot items restored
// by session.UnmarshalSnapshot — holds only values their type accepts. It is
// called on the value decoded, not on its fields or elements, and the
// Validate function does not call it, so a Validate method may use that
// function for the tags.
//
// Schema and SchemaFor describe the same types as JSON Schemas
// (github.com/google/jsonschema-go): JSON field names, `jsonschema:"…"`
// descriptions, required fields, the validator rules that have a schema
// form, and "additionalProperties": false on every object, so that what a
// model is shown and what Decode accepts agree.
//
// Registry maps Go types to stable names for serialized data such as
// session snapshots.
//
// Everything in the package is safe for concurrent use. Per-type work
// (field tables, schemas, validator caches) is done once and cached.
package serde
