package postgres

import (
	"context"
	"errors"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// A DSN can hold a password, and pgx's errors about connecting carry the
// configuration (ConnectError.Config) or the DSN itself
// (ParseConfigError.ConnString). An error of this package never wraps
// one of those: it says what pgx said, less every password it can find,
// and unwraps only to what callers match on (a context's error, the
// server's *pgconn.PgError).

// redactedError is an error whose text was cleaned of passwords.
type redactedError struct {
	msg   string
	cause error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.cause }

// secrets are the passwords an error must not show.
type secrets []string

// redact returns err, or when it carries a DSN or a configuration, or its
// text shows one of the secrets, an error of the same text less them.
func (s secrets) redact(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	var connectErr *pgconn.ConnectError
	var parseErr *pgconn.ParseConfigError
	carries := errors.As(err, &connectErr) || errors.As(err, &parseErr)
	clean := s.scrub(msg)
	if !carries && clean == msg {
		return err
	}
	e := &redactedError{msg: clean}
	var pgErr *pgconn.PgError
	switch {
	case errors.Is(err, context.Canceled):
		e.cause = context.Canceled
	case errors.Is(err, context.DeadlineExceeded):
		e.cause = context.DeadlineExceeded
	case errors.As(err, &pgErr):
		copied := *pgErr
		copied.Message, copied.Detail = s.scrub(copied.Message), s.scrub(copied.Detail)
		e.cause = &copied
	}
	return e
}

// scrub replaces every secret in msg.
func (s secrets) scrub(msg string) string {
	for _, p := range s {
		if p != "" {
			msg = strings.ReplaceAll(msg, p, "xxxxx")
		}
	}
	return msg
}

// passwordsOf returns what might be a password in dsn, as written and
// decoded, even when dsn does not parse; cfg adds those it was given,
// from the DSN, the environment or a password file.
func passwordsOf(dsn string, cfg *pgconn.Config) secrets {
	var raw []string
	if rest, ok := strings.CutPrefix(dsn, "postgres://"); ok {
		raw = append(raw, urlPasswords(rest)...)
	} else if rest, ok := strings.CutPrefix(dsn, "postgresql://"); ok {
		raw = append(raw, urlPasswords(rest)...)
	}
	for _, m := range kvPassword.FindAllStringSubmatch(dsn, -1) {
		raw = append(raw, m[1], strings.Trim(m[1], "'"), strings.ReplaceAll(strings.Trim(m[1], "'"), `\'`, `'`))
	}
	if cfg != nil {
		raw = append(raw, cfg.Password)
	}
	var out secrets
	seen := map[string]bool{}
	add := func(p string) {
		if p != "" && !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, p := range raw {
		add(p)
		if d, err := url.PathUnescape(p); err == nil {
			add(d)
		}
		if d, err := url.QueryUnescape(p); err == nil {
			add(d)
		}
	}
	for _, p := range out {
		q := strconv.Quote(p)
		add(q[1 : len(q)-1])
	}
	// Longer ones first, so that one inside another goes whole.
	slices.SortStableFunc(out, func(a, b string) int { return len(b) - len(a) })
	return out
}

// kvPassword finds password and sslpassword values in a keyword/value DSN
// (and in a URL's query).
var kvPassword = regexp.MustCompile(`(?:^|[\s?&])(?:ssl)?password\s*=\s*('(?:[^'\\]|\\.)*'?|[^\s&]*)`)

// urlPasswords returns the candidates for the password of a URL's
// userinfo (rest follows the scheme): up to the first '@', and up to the
// last '@' before the path, and up to the last '@' of all (a password
// may hold an unescaped '/').
func urlPasswords(rest string) []string {
	end := len(rest)
	if i := strings.IndexAny(rest, "/?"); i >= 0 {
		end = i
	}
	authority := rest[:end]
	var out []string
	for _, userinfo := range []string{
		authority[:max(strings.Index(authority, "@"), 0)],
		authority[:max(strings.LastIndex(authority, "@"), 0)],
		rest[:max(strings.LastIndex(rest, "@"), 0)],
	} {
		if _, pw, ok := strings.Cut(userinfo, ":"); ok {
			out = append(out, pw)
		}
	}
	return out
}
