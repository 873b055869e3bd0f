package runner

import (
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/tiktoken-go/tokenizer"

	"github.com/offshoot-dev/offshoot/model"
)

// messageOverhead is the tokens a message costs besides its text (its
// role and the separators around it), as OpenAI counts them.
const messageOverhead = 4

// sampleBytes is the most of a conversation's text the tokenizer reads to
// measure the ratio: a bounded time, whatever the texts.
const sampleBytes = 2 << 10

// defaultBytesPerToken is the ratio a model's texts are counted at before
// its first reported usage, when no tokenizer knows its family.
const defaultBytesPerToken = 3.5

// estimator counts the tokens of texts added to a conversation since the
// provider last reported the request's size, at a bytes-per-token ratio:
// measured by the tokenizer of the model's family on a sample of the
// conversation when it is an OpenAI one (its vocabulary is in the Go
// module: nothing is downloaded), and corrected by each reported usage.
// Counting a message costs a division, so that deciding whether to
// compact costs no tokenization at each turn.
type estimator struct {
	codec         tokenizer.Codec // nil: no tokenizer for the family
	bytesPerToken float64
}

// newEstimator returns the estimator for the model with the given id.
func newEstimator(id string) estimator {
	return estimator{codec: codecFor(id), bytesPerToken: defaultBytesPerToken}
}

var (
	codecOnce  [2]sync.Once
	codecCache [2]tokenizer.Codec
)

// codecFor returns the tokenizer of an OpenAI model family (o200k_base for
// gpt-4o, gpt-4.1, gpt-5 and the o-series, cl100k_base for gpt-4 and
// gpt-3.5), or nil for any other model.
func codecFor(id string) tokenizer.Codec {
	id = strings.ToLower(id)
	if i := strings.LastIndexByte(id, '/'); i >= 0 {
		id = id[i+1:]
	}
	k, enc := -1, tokenizer.Encoding("")
	switch {
	case strings.HasPrefix(id, "gpt-4o"), strings.HasPrefix(id, "gpt-4.1"), strings.HasPrefix(id, "gpt-5"),
		strings.HasPrefix(id, "o1"), strings.HasPrefix(id, "o3"), strings.HasPrefix(id, "o4"), strings.HasPrefix(id, "chatgpt"):
		k, enc = 0, tokenizer.O200kBase
	case strings.HasPrefix(id, "gpt-4"), strings.HasPrefix(id, "gpt-3.5"):
		k, enc = 1, tokenizer.Cl100kBase
	default:
		return nil
	}
	codecOnce[k].Do(func() {
		if c, err := tokenizer.Get(enc); err == nil {
			codecCache[k] = c
		}
	})
	return codecCache[k]
}

// text counts the tokens of s.
func (e *estimator) text(s string) int {
	if s == "" {
		return 0
	}
	return int(float64(len(s))/e.bytesPerToken) + 1
}

// measure sets the ratio from the tokenizer's count of a sample of msgs'
// texts, the latest first, when the family has a tokenizer.
func (e *estimator) measure(msgs []model.Message) {
	if e.codec == nil {
		return
	}
	var b strings.Builder
	for i := len(msgs) - 1; i >= 0 && b.Len() < sampleBytes; i-- {
		b.WriteString(msgs[i].Content)
		for _, c := range msgs[i].ToolCalls {
			b.WriteString(c.Arguments)
		}
	}
	sample := b.String()
	if len(sample) > sampleBytes {
		cut := sampleBytes
		for cut > 0 && !utf8.RuneStart(sample[cut]) {
			cut--
		}
		sample = sample[:cut]
	}
	if n, err := e.codec.Count(sample); err == nil && n > 0 && len(sample) >= 64 {
		e.bytesPerToken = max(1, float64(len(sample))/float64(n))
	}
}

// message counts the tokens of m.
func (e *estimator) message(m model.Message) int {
	n := messageOverhead + e.text(m.Content)
	for _, c := range m.ToolCalls {
		n += messageOverhead + e.text(c.Name) + e.text(c.Arguments)
	}
	return n
}

// messages counts the tokens of msgs.
func (e *estimator) messages(msgs []model.Message) int {
	n := 0
	for _, m := range msgs {
		n += e.message(m)
	}
	return n
}

// calibrate corrects the ratio by a reported usage: a request of bytes
// bytes (its messages' texts) was tokens tokens.
func (e *estimator) calibrate(bytes, tokens int) {
	if tokens <= 0 || bytes <= 0 {
		return
	}
	r := float64(bytes) / float64(tokens)
	if r < 1 {
		r = 1
	}
	e.bytesPerToken = r
}
