package model

import "strings"

// defaultWindow is the context window of a model whose family
// DefaultContextWindow does not know: 128k tokens, which most current
// models have at least.
const defaultWindow = 128_000

// defaultOutput is the answer's bound of a model whose family is not
// known.
const defaultOutput = 16_384

// families are the context windows and answer bounds of well-known model
// families, by the prefix of the model id (after any "provider/" part);
// the longest prefix wins.
var families = []struct {
	prefix         string
	window, output int
}{
	{"gpt-5", 400_000, 128_000},
	{"gpt-4.1", 1_047_576, 32_768},
	{"gpt-4o", 128_000, 16_384},
	{"gpt-4-turbo", 128_000, 4_096},
	{"gpt-4", 8_192, 4_096},
	{"gpt-3.5", 16_385, 4_096},
	{"o1", 200_000, 100_000},
	{"o3", 200_000, 100_000},
	{"o4", 200_000, 100_000},
	{"claude-opus-4", 200_000, 32_000},
	{"claude-sonnet-4", 200_000, 64_000},
	{"claude-3-7", 200_000, 64_000},
	{"claude-haiku-4", 200_000, 64_000},
	{"claude", 200_000, 8_192},
	{"gemini", 1_048_576, 65_536},
	{"llama-3", 128_000, 8_192},
	{"llama3", 128_000, 8_192},
	{"llama", 8_192, 2_048},
	{"qwen3", 128_000, 32_768},
	{"qwen2.5", 128_000, 8_192},
	{"qwen", 32_768, 8_192},
	{"mistral", 128_000, 8_192},
	{"deepseek", 128_000, 8_192},
}

// DefaultContextWindow returns the context window and the answer's bound,
// in tokens, of the model with the given id: those of its family when it
// is a well-known one (gpt-4o, gpt-4.1, gpt-5, the o-series, claude-*,
// gemini, llama, qwen, mistral, deepseek), else 128,000 and 16,384.
// A "provider/" prefix ("openai/gpt-4o") and the case are ignored.
func DefaultContextWindow(id string) (window, maxOutput int) {
	id = strings.ToLower(strings.TrimSpace(id))
	if i := strings.LastIndexByte(id, '/'); i >= 0 {
		id = id[i+1:]
	}
	best := -1
	for i, f := range families {
		if strings.HasPrefix(id, f.prefix) && (best < 0 || len(f.prefix) > len(families[best].prefix)) {
			best = i
		}
	}
	if best < 0 {
		return defaultWindow, defaultOutput
	}
	return families[best].window, families[best].output
}
