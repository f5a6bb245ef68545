package kafka

import (
	"fmt"
	"net"

	"github.com/twmb/franz-go/pkg/kfake"
)

// DefaultPartitions is the partition count of pipeline topics (docs/architecture.md, Pipeline).
const DefaultPartitions = 12

// Embedded is a one-broker Kafka cluster (kfake) running inside the process,
// reachable over TCP by any Kafka client (kcat, a second hyscribe process).
type Embedded struct {
	cluster *kfake.Cluster
	addrs   []string
}

// StartEmbedded starts a one-broker cluster listening on addr ("127.0.0.1:9092",
// or port 0 for a free port). The broker advertises the address it really
// listens on, so outside clients that bootstrap from Addrs reach it again
// after the metadata round trip; a wildcard host ("0.0.0.0:9092") is
// advertised as such, which only works for clients on the same machine.
//
// With a non-empty dataDir every produced batch and every committed group
// offset is written (and fsynced) there as it happens, and a cluster started
// again on the same directory reloads them: topics, records, committed
// offsets. An empty dataDir keeps everything in memory.
//
// partitions is the count used for topics created without one (CreateTopics
// with -1, automatic creation); <= 0 means DefaultPartitions. opts are
// appended to the kfake options, for tests (kfake.GroupMinSessionTimeout)
// or a logger (kfake.WithLogger).
func StartEmbedded(addr string, dataDir string, partitions int, opts ...kfake.Opt) (*Embedded, error) {
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return nil, fmt.Errorf("kafka.StartEmbedded: address %q: %w", addr, err)
	}
	if partitions <= 0 {
		partitions = DefaultPartitions
	}
	// kfake always asks for 127.0.0.1:<port>; we bind the address we were
	// given instead, and kfake advertises whatever the listener reports.
	listen := func(network, _ string) (net.Listener, error) { return net.Listen(network, addr) }
	all := []kfake.Opt{
		kfake.NumBrokers(1),
		kfake.ListenFn(listen),
		kfake.DefaultNumPartitions(partitions),
		kfake.AllowAutoTopicCreation(),
	}
	if dataDir != "" {
		all = append(all, kfake.DataDir(dataDir), kfake.SyncWrites())
	}
	all = append(all, opts...)
	c, err := kfake.NewCluster(all...)
	if err != nil {
		return nil, fmt.Errorf("kafka.StartEmbedded on %s: %w", addr, err)
	}
	return &Embedded{cluster: c, addrs: c.ListenAddrs()}, nil
}

// Addrs returns the broker addresses to give clients as seed brokers.
func (e *Embedded) Addrs() []string { return append([]string(nil), e.addrs...) }

// Close stops listening, writes the cluster's state to its data directory
// and releases it. Safe to call more than once.
func (e *Embedded) Close() { e.cluster.Close() }

// GroupClients lists the client IDs of group's current members, one per
// member, read from the broker's own state (no request is made).
func (e *Embedded) GroupClients(group string) []string {
	gi := e.cluster.GroupInfo(group)
	if gi == nil {
		return nil
	}
	out := make([]string, len(gi.Members))
	for i, m := range gi.Members {
		out[i] = m.ClientID
	}
	return out
}
