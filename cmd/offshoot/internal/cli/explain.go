package cli

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"syscall"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/store"
)

// Explain says why a run or a turn failed in two parts a person reads at
// once: what happened, in one sentence, and what to do, in one more. The
// library's error chain (runner: evaluating … failed in the … phase:
// openai: giving up after … : model: …) is for --verbose and logs.
func Explain(err error) (what, todo string) {
	var te *model.TimeoutError
	var rl *model.RateLimitError
	var api *model.APIError
	switch {
	case errors.Is(err, runner.ErrMaxTurns):
		return "the main agent was still calling tools when it reached its limit of model calls",
			"give it more model calls with --max-turns, or a narrower task"
	case errors.Is(err, runner.ErrBudgetExceeded):
		return "the run spent its token budget", "give it a narrower task"
	case errors.As(err, &te):
		return strings.TrimPrefix(strings.SplitN(te.Error(), ";", 2)[0], "model: "),
			"if the model is slow rather than stuck, give it longer with --timeout or --stall-timeout"
	case errors.Is(err, model.ErrQuota):
		return "the model's provider refused: the account behind the key has no quota or credit left" + provider(err),
			"add credit or raise the account's limits at the provider, or use another key"
	case errors.Is(err, model.ErrAuth):
		return "the model's server refused the API key" + provider(err),
			"check the key (LLM_API_KEY, or \"api_key\" in .offshoot/config.json)"
	case errors.As(err, &rl):
		wait := ""
		if rl.RetryAfter > 0 {
			wait = fmt.Sprintf(" (it asked to wait %s)", rl.RetryAfter)
		}
		return "the model's provider is limiting the rate of requests" + wait, "wait a moment and run it again"
	case errors.Is(err, model.ErrContextLength):
		return "the conversation no longer fits the model's context window", "give it a narrower task or a smaller --dir"
	case errors.As(err, &api) && api.StatusCode >= 500:
		return fmt.Sprintf("the model's provider failed on its side (HTTP %d)%s", api.StatusCode, provider(err)),
			"wait a while and run it again, and if it goes on, check the provider's status"
	case errors.As(err, &api) && api.Message != "":
		status := ""
		if api.StatusCode != 0 {
			status = fmt.Sprintf(" (HTTP %d)", api.StatusCode)
		}
		return "the model's server answered with an error" + status + ": " + api.Message,
			"fix the model's configuration as the server says, and run it again"
	case errors.Is(err, store.ErrConflict):
		return "another process wrote to this session meanwhile (" + Printable(conflict(err)) + "); what the turn did from then on was not stored",
			"end this one and carry the session on from where the other left it with 'offshoot chat --resume' and its id"
	case unreachable(err):
		return "the model's server could not be reached (" + innermost(err) + ")",
			"check LLM_BASE_URL (or \"base_url\" in .offshoot/config.json) and that the server is up and reachable from here"
	}
	return innermost(err), "fix the cause above and run it again"
}

// conflict returns what the store said of a conflict: the session, where
// its log ends and where the batch started.
func conflict(err error) string {
	for e := err; e != nil; e = errors.Unwrap(e) {
		if errors.Unwrap(e) == store.ErrConflict {
			return strings.TrimPrefix(e.Error(), store.ErrConflict.Error()+": ")
		}
	}
	return err.Error()
}

// Chain is the whole error chain, for --verbose.
func Chain(err error) string { return err.Error() }

// provider returns ": MESSAGE" for the provider's own message, if any.
func provider(err error) string {
	var api *model.APIError
	if errors.As(err, &api) && api.Message != "" {
		return ": " + api.Message
	}
	return ""
}

// unreachable reports whether err says no answer came from the model's
// server: its name did not resolve, the connection was refused or broke,
// the HTTP exchange failed.
func unreachable(err error) bool {
	var op *net.OpError
	var dns *net.DNSError
	var u *url.Error
	return errors.As(err, &op) || errors.As(err, &dns) || errors.As(err, &u) || errors.Is(err, syscall.ECONNREFUSED)
}

// innermost returns the message of the deepest error in err's chain that
// says something of its own.
func innermost(err error) string {
	msg := err.Error()
	for e := errors.Unwrap(err); e != nil; e = errors.Unwrap(e) {
		if m := e.Error(); m != "" {
			msg = m
		}
	}
	return msg
}
