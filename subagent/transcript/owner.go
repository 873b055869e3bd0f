package transcript

import (
	"os"
	"sync"
)

// Owner is the process that runs an agent, as its record keeps it: when
// the process dies (killed, crashed, out of disk) before the agent ends,
// the record still says running, and readers tell from Owner that it was
// interrupted. Token tells the process from a later one that got the same
// id (on Linux: the boot and the process's start time).
type Owner struct {
	PID   int    `json:"pid"`
	Host  string `json:"host,omitempty"`
	Token string `json:"token,omitempty"`
}

var (
	selfOnce sync.Once
	self     Owner
)

// thisProcess returns the Owner record of this process.
func thisProcess() Owner {
	selfOnce.Do(func() {
		host, _ := os.Hostname()
		self = Owner{PID: os.Getpid(), Host: host, Token: processToken(os.Getpid())}
	})
	return self
}

// gone reports whether the process o names has ended: it ran on this
// host and no process has its id now, or another one does. A process on
// another host, or one that cannot be checked, is taken to run.
func (o *Owner) gone() bool {
	if o == nil || o.PID <= 0 {
		return false
	}
	me := thisProcess()
	if o.Host != me.Host {
		return false
	}
	if o.PID == me.PID {
		return o.Token != "" && me.Token != "" && o.Token != me.Token
	}
	alive, known := processAlive(o.PID)
	if !known {
		return false
	}
	if !alive {
		return true
	}
	now := processToken(o.PID)
	return o.Token != "" && now != "" && now != o.Token
}
