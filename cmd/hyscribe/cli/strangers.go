package cli

import (
	"context"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/hyscribe/hyscribe/app"
)

// A `serve` on SQLite runs the embedded broker for itself only: its stages'
// consumer groups are the pipeline's, so an api or worker that takes this
// broker for its KAFKA_BROKERS joins them and takes partitions whose
// jobs live in this serve's SQLite file, which it cannot see (they stay
// `processing`; docs/operations.md, Split topology). Such a serve marks its
// own Kafka clients with a client ID of its own and warns whenever a
// member with another one sits in one of its groups; `hyscribe kafka` is
// the broker for other processes. On Postgres several processes sharing
// the database may share the broker too, so nothing is watched.

// strangerCheckEvery is how often the groups are looked at: an in-process
// read of the broker's state, cheap.
const strangerCheckEvery = 2 * time.Second

// ownClientID marks this process's Kafka clients when its embedded broker
// must not be shared; "" otherwise.
func (s *Service) ownClientID() string {
	if s.embedded == nil || s.pg != nil {
		return ""
	}
	return "hyscribe-serve-" + app.NewID()[:8]
}

// markOwnClients adds the client ID to every Kafka client the service makes.
func markOwnClients(opts []kgo.Opt, own string) []kgo.Opt {
	if own == "" {
		return opts
	}
	return append(opts, kgo.ClientID(own))
}

// watchStrangers warns, once per group and client, of a member of a
// group of stages that is not this process.
func (s *Service) watchStrangers(ctx context.Context, own string, stages []string) {
	if own == "" {
		return
	}
	warned := map[string]bool{}
	tick := time.NewTicker(strangerCheckEvery)
	defer tick.Stop()
	for {
		for _, st := range stages {
			group := "hyscribe-" + st
			for _, c := range s.embedded.GroupClients(group) {
				if c == own || warned[group+" "+c] {
					continue
				}
				warned[group+" "+c] = true
				s.log.Warn("another process joined a consumer group of this serve's embedded Kafka: it takes records of jobs that live in this serve's SQLite store, which stay processing; give api and worker processes `hyscribe kafka` as their broker (docs/operations.md, Split topology)",
					"group", group, "clientId", c)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}
