package thirdparty

import (
	"testing"

	"github.com/offshoot-dev/offshoot/store"
	"github.com/offshoot-dev/offshoot/store/storetest"
)

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store { return New() }, storetest.Options{LargeBytes: 1 << 20})
}
