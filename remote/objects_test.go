package remote

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"
)

// A snapshot or batch object is read bounded and checked against its
// name, whatever its entry in the bucket says: an entry that understates
// its size (another client wrote it) cannot make a reader take more than
// the bound.
func TestObjectsAreReadBoundedAndChecked(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	srv, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: t.TempDir(), NoLog: true, NoSigs: true})
	require.NoError(t, err)
	go srv.Start()
	require.True(t, srv.ReadyForConnections(30*time.Second))
	defer srv.Shutdown()
	nc, err := nats.Connect(srv.ClientURL())
	require.NoError(t, err)
	defer nc.Close()
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	in, err := ensure(ctx, js, "objects", time.Minute, 3, time.Hour)
	require.NoError(t, err)

	good := []byte(`{"a":1}`)
	_, err = in.objects.PutBytes(ctx, hashOf(good), good)
	require.NoError(t, err)

	// Two megabytes under the name of a seven-byte object, its entry then
	// rewritten to say seven bytes.
	big := bytes.Repeat([]byte("x"), 2<<20)
	liar := hashOf([]byte("small"))
	info, err := in.objects.PutBytes(ctx, liar, big)
	require.NoError(t, err)
	info.Size = 7
	meta, err := json.Marshal(info)
	require.NoError(t, err)
	m := nats.NewMsg("$O." + bucket + ".M." + base64.URLEncoding.EncodeToString([]byte(liar)))
	m.Header.Set(jetstream.MsgRollup, jetstream.MsgRollupSubject)
	m.Data = meta
	_, err = js.PublishMsg(ctx, m)
	require.NoError(t, err)

	wrong := hashOf([]byte("other"))
	_, err = in.objects.PutBytes(ctx, wrong, good)
	require.NoError(t, err)

	for _, tc := range []struct {
		name, object string
		max          int64
		want         string
	}{
		{"good", hashOf(good), 1 << 20, ""},
		{"missing", hashOf([]byte("nothing")), 1 << 20, "not in the snapshot store"},
		{"not a hash", "../etc", 1 << 20, "not a sha256"},
		{"over the bound", hashOf(good), 3, "over the limit of 3"},
		{"understating its size", liar, 1 << 20, "more than the 7 bytes"},
		{"another's bytes", wrong, 1 << 20, "does not have the hash"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data, err := readObject(ctx, in.objects, tc.object, tc.max)
			if tc.want == "" {
				require.NoError(t, err)
				require.Equal(t, good, data)
				return
			}
			require.ErrorContains(t, err, tc.want)
		})
	}
}
