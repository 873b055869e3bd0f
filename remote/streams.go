package remote

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// The JetStream names the pools share.
const (
	jobsStream    = "OFFSHOOT_JOBS"     // work queue: offshoot.jobs.<pool>
	repliesStream = "OFFSHOOT_PROGRESS" // offshoot.progress.<executor>.<job>
	bucket        = "offshoot_snapshots"
	repliesMaxAge = time.Hour
)

// objectsTTL is how long the snapshot bucket keeps an object, when this
// program creates the bucket (a variable for tests).
var objectsTTL = 24 * time.Hour

// DefaultPool is the pool of an executor or a worker that names none,
// and of offshoot worker without --pool.
const DefaultPool = "default"

func jobsSubject(pool string) string  { return "offshoot.jobs." + pool }
func consumerName(pool string) string { return "offshoot-" + pool }

// cancelSubject is where a job is cancelled, by its key (job.key).
func cancelSubject(key string) string { return "offshoot.cancel." + key }

// infra is what both sides need of JetStream: the streams, the pool's
// consumer, the snapshot bucket. Creating them is idempotent.
type infra struct {
	jobs    jetstream.Stream
	replies jetstream.Stream
	pool    jetstream.Consumer
	objects jetstream.ObjectStore
	// objectsTTL is how long the bucket keeps an object (0: for ever).
	objectsTTL time.Duration
}

func ensure(ctx context.Context, js jetstream.JetStream, pool string, ackWait time.Duration, maxDeliver int, jobMaxAge time.Duration) (*infra, error) {
	if !safeToken(pool) {
		return nil, fmt.Errorf("remote: the pool name %q must be letters, digits, '-' or '_'", pool)
	}
	var in infra
	var err error
	in.jobs, err = createOrGet(ctx, js, jetstream.StreamConfig{
		Name: jobsStream, Subjects: []string{"offshoot.jobs.>"}, Retention: jetstream.WorkQueuePolicy,
		Storage: jetstream.FileStorage, Duplicates: min(2*time.Minute, jobMaxAge), MaxAge: jobMaxAge,
	})
	if err != nil {
		return nil, fmt.Errorf("remote: the jobs stream: %w", err)
	}
	in.replies, err = createOrGet(ctx, js, jetstream.StreamConfig{
		Name: repliesStream, Subjects: []string{"offshoot.progress.>"}, Retention: jetstream.LimitsPolicy,
		Storage: jetstream.FileStorage, MaxAge: repliesMaxAge, Duplicates: 2 * time.Minute,
	})
	if err != nil {
		return nil, fmt.Errorf("remote: the progress stream: %w", err)
	}
	in.pool, err = in.jobs.CreateOrUpdateConsumer(ctx, jetstream.ConsumerConfig{
		Durable: consumerName(pool), FilterSubject: jobsSubject(pool), AckPolicy: jetstream.AckExplicitPolicy,
		AckWait: ackWait, MaxDeliver: maxDeliver, MaxAckPending: 10_000, DeliverPolicy: jetstream.DeliverAllPolicy,
	})
	if err != nil {
		// Another program made the pool with other settings: use it.
		if c, gerr := in.jobs.Consumer(ctx, consumerName(pool)); gerr == nil {
			in.pool, err = c, nil
		}
	}
	if err != nil {
		return nil, fmt.Errorf("remote: the pool %q: %w", pool, err)
	}
	in.objects, err = js.CreateOrUpdateObjectStore(ctx, jetstream.ObjectStoreConfig{Bucket: bucket, TTL: objectsTTL, Storage: jetstream.FileStorage})
	if err != nil {
		if in.objects, err = js.ObjectStore(ctx, bucket); err != nil {
			return nil, fmt.Errorf("remote: the snapshot bucket: %w", err)
		}
	}
	if st, err := in.objects.Status(ctx); err == nil {
		in.objectsTTL = st.TTL()
	} else {
		return nil, fmt.Errorf("remote: the snapshot bucket: %w", err)
	}
	return &in, nil
}

// createOrGet creates the stream, or takes it as it is when it exists.
func createOrGet(ctx context.Context, js jetstream.JetStream, cfg jetstream.StreamConfig) (jetstream.Stream, error) {
	s, err := js.CreateStream(ctx, cfg)
	if errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
		return js.Stream(ctx, cfg.Name)
	}
	return s, err
}

// hashOf is the name of an object: the sha256 of its bytes.
func hashOf(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}
