package openai

import (
	"errors"
	"net/url"
	"strings"
)

// redacted replaces a secret in what errors show.
const redacted = "[REDACTED]"

// secretsOf lists what an error must never show: the API key and the
// values of the base URL's query (a gateway may take its key there).
func secretsOf(key string, u *url.URL) []string {
	var out []string
	if len(strings.TrimSpace(key)) >= 4 {
		out = append(out, key)
	}
	for _, vs := range u.Query() {
		for _, v := range vs {
			if len(v) >= 4 {
				out = append(out, v, url.QueryEscape(v))
			}
		}
	}
	return out
}

// redact replaces every secret in s.
func (m *Model) redact(s string) string {
	for _, secret := range m.secrets {
		s = strings.ReplaceAll(s, secret, redacted)
	}
	return s
}

// hideURL shows the endpoint with its query's values redacted in the
// errors of the HTTP client, which name the URL they failed on.
func (m *Model) hideURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		ue.URL = m.shownEndpoint
	}
	return err
}

// redactError returns err, or, when its message shows a secret (a server
// that echoes the key in its error, say), an error whose message has it
// redacted and which still matches what err matches.
func (m *Model) redactError(err error) error {
	if err == nil || len(m.secrets) == 0 {
		return err
	}
	msg := err.Error()
	if clean := m.redact(msg); clean != msg {
		return &redactedError{msg: clean, err: err}
	}
	return err
}

type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }
