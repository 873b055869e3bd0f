package inspector

import (
	"cmp"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/offshoot-dev/offshoot/store"
)

// What offshoot run and chat keep of a session in its tags (see the
// command's sessions list), and a subagent's session (package subagent).
const (
	kindTag        = "offshoot.kind"
	questionTag    = "offshoot.question"
	turnsTag       = "offshoot.turns"
	tokensTag      = "offshoot.tokens"
	cachedTag      = "offshoot.tokens.cached"
	agentTag       = "offshoot.agent"
	agentTypeTag   = "offshoot.agent.type"
	descriptionTag = "offshoot.agent.description"
	workerTag      = "offshoot.worker"
)

// pageSize is how many sessions the sessions page shows at once.
const pageSize = 50

// maxListed bounds the sessions the sessions page reads from the store
// to search and sort: the most recently active.
const maxListed = 50_000

// activeFor is how long after its last batch a session shows as active.
const activeFor = 2 * time.Minute

// row is a session as the tables show it.
type row struct {
	store.Header
	Kind, Question, Agent, Worker string
	Turns                         int
	Tokens, Cached                int64
	Status                        string
}

// summarize reads what the programs that stored h kept in its tags. The
// tags are untrusted: a count that is not one reads as 0.
func summarize(h store.Header, now time.Time) row {
	r := row{Header: h, Kind: h.Tags[kindTag], Question: oneLine(h.Tags[questionTag], 200), Worker: h.Tags[workerTag]}
	if _, ok := h.Tags[agentTag]; ok {
		// A subagent's session carries its parent's tags: its counts are
		// its parent's, not its own.
		r.Kind, r.Question, r.Agent = "agent", oneLine(h.Tags[descriptionTag], 200), h.Tags[agentTypeTag]
	} else {
		r.Turns, _ = strconv.Atoi(h.Tags[turnsTag])
		r.Tokens, _ = strconv.ParseInt(h.Tags[tokensTag], 10, 64)
		r.Cached, _ = strconv.ParseInt(h.Tags[cachedTag], 10, 64)
		r.Turns, r.Tokens, r.Cached = max(r.Turns, 0), max(r.Tokens, 0), max(r.Cached, 0)
	}
	r.Status = "idle"
	if now.Sub(h.Updated) < activeFor {
		r.Status = "active"
	}
	return r
}

// oneLine returns s on one line, cut to n characters.
func oneLine(s string, n int) string {
	if len(s) > 8*n+64 {
		s = strings.ToValidUTF8(s[:8*n+64], "")
	}
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		s = string(r[:n]) + "…"
	}
	return s
}

// sortKeys are the columns the sessions page sorts by.
var sortKeys = map[string]func(a, b row) int{
	"updated": func(a, b row) int { return a.Updated.Compare(b.Updated) },
	"created": func(a, b row) int { return a.Created.Compare(b.Created) },
	"turns":   func(a, b row) int { return cmp.Compare(a.Turns, b.Turns) },
	"tokens":  func(a, b row) int { return cmp.Compare(a.Tokens, b.Tokens) },
	"id":      func(a, b row) int { return strings.Compare(a.ID, b.ID) },
}

// sessionsView is what the sessions page shows.
type sessionsView struct {
	Rows               []row
	Query, Sort, Order string
	All                bool
	Page, Pages, Total int
	Prev, Next         string
	Sorts              []string
	Capped             int // the sessions searched and sorted were only the most recent this many
}

func (s *Server) sessionsPage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	v := sessionsView{Query: q.Get("q"), Sort: q.Get("sort"), Order: q.Get("order"), All: q.Get("all") == "1",
		Sorts: []string{"updated", "created", "turns", "tokens", "id"}}
	if _, ok := sortKeys[v.Sort]; !ok {
		v.Sort = "updated"
	}
	if v.Order != "asc" {
		v.Order = "desc"
	}
	v.Page, _ = strconv.Atoi(q.Get("page"))
	v.Page = max(v.Page, 1)
	// The store lists the most recently updated first: that order needs
	// only the sessions up to the page's; another, or a search, needs
	// them all.
	limit := maxListed
	latest := v.Query == "" && v.Sort == "updated" && v.Order == "desc"
	if latest {
		limit = min(v.Page*pageSize+1, maxListed)
	}
	hs, err := s.st.List(r.Context(), store.Query{Roots: !v.All, Limit: limit})
	if err != nil {
		s.fail(w, http.StatusInternalServerError, "cannot list the sessions: "+err.Error())
		return
	}
	now := time.Now()
	needle := strings.ToLower(v.Query)
	var rows []row
	if latest {
		// Only the page's sessions are summarized.
		start := min((v.Page-1)*pageSize, len(hs))
		for _, h := range hs[start:min(start+pageSize, len(hs))] {
			rows = append(rows, summarize(h, now))
		}
		v.Rows, v.Total = rows, -1
		if len(hs) == 0 {
			v.Page = 1
		}
		v.Pages = v.Page
		if len(hs) > v.Page*pageSize {
			v.Pages = v.Page + 1 // at least
		}
	} else {
		rows = make([]row, 0, len(hs))
		for _, h := range hs {
			rw := summarize(h, now)
			if needle != "" && !matches(rw, needle) {
				continue
			}
			rows = append(rows, rw)
		}
		by := sortKeys[v.Sort]
		slices.SortStableFunc(rows, func(a, b row) int {
			if v.Order == "asc" {
				return cmp.Or(by(a, b), strings.Compare(a.ID, b.ID))
			}
			return cmp.Or(by(b, a), strings.Compare(a.ID, b.ID))
		})
		if len(hs) == maxListed {
			v.Capped = maxListed
		}
		v.Total = len(rows)
		v.Pages = max((len(rows)+pageSize-1)/pageSize, 1)
		v.Page = min(v.Page, v.Pages)
		start := (v.Page - 1) * pageSize
		v.Rows = rows[start:min(start+pageSize, len(rows))]
	}
	link := func(page int) string {
		u := url.Values{"q": {v.Query}, "sort": {v.Sort}, "order": {v.Order}, "page": {strconv.Itoa(page)}}
		if v.All {
			u.Set("all", "1")
		}
		return "/?" + u.Encode()
	}
	if v.Page > 1 {
		v.Prev = link(v.Page - 1)
	}
	if v.Page < v.Pages {
		v.Next = link(v.Page + 1)
	}
	s.render(w, "sessions.html", v)
}

// matches reports whether a session's id, question, kind or agent holds
// needle (lower case).
func matches(r row, needle string) bool {
	for _, f := range []string{r.ID, r.Question, r.Kind, r.Agent, r.Parent} {
		if strings.Contains(strings.ToLower(f), needle) {
			return true
		}
	}
	return false
}
