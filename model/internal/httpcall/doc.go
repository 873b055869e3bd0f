// Package httpcall holds what the HTTP model adapters (model/openai,
// model/anthropic) share about one call: the watch that ends an attempt
// when the server stays silent, and the reader of server-sent events.
package httpcall
