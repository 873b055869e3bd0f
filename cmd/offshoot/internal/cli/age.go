package cli

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The longest age, well below what a time.Duration holds.
const (
	maxAgeDays = 100 * 366
	maxAge     = maxAgeDays * 24 * time.Hour
)

// ParseAge reads an age, as prune's --older-than gives it: a whole number
// of days ("30d"), a Go duration ("12h", "90m", "1h30m"), or days followed
// by a duration ("1d12h"). It is neither negative nor longer than
// maxAgeDays days.
func ParseAge(in string) (time.Duration, error) {
	bad := func(why string) (time.Duration, error) {
		return 0, fmt.Errorf("%q %s; give days such as 30d, a duration such as 12h or 90m, or both such as 1d12h", in, why)
	}
	s := in
	var days time.Duration
	if i := strings.IndexByte(s, 'd'); i >= 0 {
		n, err := strconv.Atoi(s[:i])
		switch {
		case s[0] == '-':
			return bad("is negative")
		case i == 0 || s[0] == '+' || err != nil && !strings.Contains(err.Error(), "out of range"):
			return bad("does not start with a whole number of days")
		case err != nil || n > maxAgeDays:
			return bad(fmt.Sprintf("is too long an age (at most %d days)", maxAgeDays))
		}
		days, s = time.Duration(n)*24*time.Hour, s[i+1:]
		if s == "" {
			return days, nil
		}
	}
	d, err := time.ParseDuration(s)
	switch {
	case in == "":
		return bad("is empty")
	case err != nil:
		return bad("is not an age")
	case d < 0:
		return bad("is negative")
	case d > maxAge-days:
		return bad(fmt.Sprintf("is too long an age (at most %d days)", maxAgeDays))
	}
	return days + d, nil
}
