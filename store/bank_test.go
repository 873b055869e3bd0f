package store_test

import (
	"fmt"
	"reflect"

	"github.com/offshoot-dev/offshoot/session"
)

// A bank: deposits folded into a balance, the deposits kept, and an
// opening balance seeded when the reducers are installed.
type (
	Deposit struct{ Amount int }
	Balance struct{ Total int }
	Opened  struct{ By string }
)

func bank() session.Reducers {
	return session.Reducers{
		Key: "example.com/bank",
		Rules: []session.Rule{
			session.On(func(_ session.ReducerContext, sl session.Slice[Balance], d Deposit) (session.Slice[Balance], error) {
				if d.Amount <= 0 {
					return sl, fmt.Errorf("a deposit must be positive, not %d", d.Amount)
				}
				cur, _ := sl.Latest()
				return session.SliceOf(Balance{cur.Total + d.Amount}), nil
			}),
			session.Keep[Deposit](),
			session.Keep[Opened](),
		},
		Names: map[reflect.Type]string{reflect.TypeFor[Deposit](): "bank.Deposit", reflect.TypeFor[Balance](): "bank.Balance", reflect.TypeFor[Opened](): "bank.Opened"},
		Seed:  []any{Opened{By: "seed"}},
	}
}
