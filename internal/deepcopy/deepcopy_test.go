package deepcopy_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/offshoot-dev/offshoot/internal/deepcopy"
)

func TestCloneSharesNothing(t *testing.T) {
	type inner struct{ Tags []string }
	type value struct {
		Names  []string
		Counts map[string]int
		Ptr    *inner
		Arr    [2][]int
		Any    any
	}
	orig := value{Names: []string{"a"}, Counts: map[string]int{"a": 1}, Ptr: &inner{Tags: []string{"t"}}, Arr: [2][]int{{1}, {2}}, Any: []int{3}}
	c := deepcopy.Of(orig)
	assert.Equal(t, orig, c)
	c.Names[0], c.Counts["a"], c.Ptr.Tags[0], c.Arr[0][0] = "changed", 9, "changed", 9
	c.Any.([]int)[0] = 9
	assert.Equal(t, "a", orig.Names[0])
	assert.Equal(t, 1, orig.Counts["a"])
	assert.Equal(t, "t", orig.Ptr.Tags[0])
	assert.Equal(t, 1, orig.Arr[0][0])
	assert.Equal(t, 3, orig.Any.([]int)[0])

	assert.Nil(t, deepcopy.Of[any](nil))
	assert.Nil(t, deepcopy.Of[*inner](nil))
}
