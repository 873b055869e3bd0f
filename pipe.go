package offshoot

import "sync"

// maxQueued is how many messages a query holds for its reader before the
// main agent's evaluation waits for the reader to take some.
const maxQueued = 256

// pipe carries a query's messages from where they happen — the
// evaluation's goroutines, the background tasks' — to the reader of the
// query's loop, in order. The evaluation's messages wait for room when
// the reader is behind (put with wait), so a slow reader slows the
// evaluation instead of piling messages up; a task's notification never
// waits, so a task never hangs on a reader that waits for it. After end,
// the pipe yields what it holds, then nothing; after abandon (the reader
// has gone) it takes nothing more.
type pipe struct {
	mu    sync.Mutex
	queue []Message
	ended bool
	ready chan struct{} // a message, or the end, arrived
	room  chan struct{} // the reader took a message
	gone  chan struct{} // closed by abandon
	once  sync.Once
}

func newPipe() *pipe {
	return &pipe{ready: make(chan struct{}, 1), room: make(chan struct{}, 1), gone: make(chan struct{})}
}

// put queues m, waiting for room first when wait is set and the queue is
// full; it drops m once the pipe has ended or its reader has gone.
func (p *pipe) put(m Message, wait bool) {
	for {
		p.mu.Lock()
		select {
		case <-p.gone:
			p.mu.Unlock()
			return
		default:
		}
		if p.ended {
			p.mu.Unlock()
			return
		}
		if !wait || len(p.queue) < maxQueued {
			p.queue = append(p.queue, m)
			p.mu.Unlock()
			signal(p.ready)
			return
		}
		p.mu.Unlock()
		select {
		case <-p.room:
		case <-p.gone:
			return
		}
	}
}

// end queues the last message.
func (p *pipe) end(m Message) {
	p.mu.Lock()
	if !p.ended {
		p.queue = append(p.queue, m)
		p.ended = true
	}
	p.mu.Unlock()
	signal(p.ready)
}

// next returns the next message, waiting for one; ok is false once the
// last has been taken.
func (p *pipe) next() (m Message, ok bool) {
	for {
		p.mu.Lock()
		if len(p.queue) > 0 {
			m = p.queue[0]
			p.queue[0] = nil
			p.queue = p.queue[1:]
			p.mu.Unlock()
			signal(p.room)
			return m, true
		}
		ended := p.ended
		p.mu.Unlock()
		if ended {
			return nil, false
		}
		<-p.ready
	}
}

// abandon tells the pipe its reader has gone: what waits to put gives up.
func (p *pipe) abandon() { p.once.Do(func() { close(p.gone) }) }

// signal wakes one waiter of ch without blocking.
func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}
