package journal

// MaxRemembered and Remembered let the tests see the journal's bound.
const MaxRemembered = maxRemembered

func Remembered(j *Journal) int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return len(j.batches)
}
