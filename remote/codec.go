package remote

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/serde"
)

// encodeEvents encodes a committed batch: each event as its type's name in
// reg and its JSON, as snapshot JSON has them.
func encodeEvents(reg *serde.Registry, batch []bus.Envelope) ([]typed, error) {
	out := make([]typed, len(batch))
	for i, env := range batch {
		name, err := reg.Ensure(reflect.TypeOf(env.Payload))
		if err != nil {
			return nil, err
		}
		data, err := json.Marshal(env.Payload)
		if err != nil {
			return nil, fmt.Errorf("event %d (%s) cannot be encoded: %w", i, name, err)
		}
		out[i] = typed{Type: name, Data: data}
	}
	return out, nil
}

// decodeEvents decodes events encodeEvents encoded, with the types reg
// knows by name (or by serde.DefaultName, for a type the program named
// nowhere).
func decodeEvents(reg *serde.Registry, events []typed) ([]any, error) {
	out := make([]any, len(events))
	var byDefault map[string]reflect.Type
	for i, e := range events {
		t, ok := reg.Lookup(e.Type)
		if !ok {
			if byDefault == nil {
				byDefault = map[string]reflect.Type{}
				for _, n := range reg.Names() {
					if t, ok := reg.Lookup(n); ok {
						byDefault[serde.DefaultName(t)] = t
					}
				}
			}
			if t, ok = byDefault[e.Type]; !ok {
				return nil, fmt.Errorf("the child recorded an event of type %q, which this program does not know; register it (serde.Register, or the Names of its reducer set) where the child is dispatched", e.Type)
			}
		}
		v := reflect.New(t)
		if err := json.Unmarshal(e.Data, v.Interface()); err != nil {
			return nil, fmt.Errorf("the child's event %d (%s) cannot be decoded: %w", i, e.Type, err)
		}
		out[i] = v.Elem().Interface()
	}
	return out, nil
}
