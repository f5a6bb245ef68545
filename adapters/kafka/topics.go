package kafka

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/hyscribe/hyscribe/domain"
)

// DefaultReplicationFactor is the replicas of each topic when
// TopicSettings.ReplicationFactor is 0, on a cluster with at least as many
// brokers: one broker may be down for maintenance while another fails.
const DefaultReplicationFactor = 3

// TopicSettings say how the topics hyscribe creates are laid out.
type TopicSettings struct {
	// Partitions per topic (<= 0: the broker's default).
	Partitions int32
	// ReplicationFactor is the replicas of each partition. 0 means
	// DefaultReplicationFactor, or every broker of a smaller cluster (1 for
	// an embedded one). More than the cluster's brokers is an error:
	// Kafka would refuse the topics, or a broker default would silently
	// leave them unreplicated.
	ReplicationFactor int
	// Logger is told about existing topics laid out differently (they are
	// left as they are); nil: nowhere.
	Logger *slog.Logger
	// ClientOpts are added to the admin client's options (Security's).
	ClientOpts []kgo.Opt
}

// EnsureTopics creates each topic and its dead-letter twin (domain.DLQ) as
// set says, after checking the replication factor against the brokers the
// cluster has. Topics that already exist are left as they are; one with
// fewer partitions or replicas than set is reported to set.Logger.
func EnsureTopics(ctx context.Context, brokers []string, topics []string, set TopicSettings) error {
	if len(topics) == 0 {
		return nil
	}
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(brokers...)}, set.ClientOpts...)...)
	if err != nil {
		return fmt.Errorf("kafka.EnsureTopics: %w", err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)

	meta, err := adm.BrokerMetadata(ctx)
	if err != nil {
		return fmt.Errorf("kafka.EnsureTopics: brokers: %w", err)
	}
	rf, err := ReplicationFor(set.ReplicationFactor, len(meta.Brokers))
	if err != nil {
		return err
	}
	all := make([]string, 0, 2*len(topics))
	for _, t := range topics {
		all = append(all, t, domain.DLQ(t))
	}
	partitions := set.Partitions
	if partitions <= 0 {
		partitions = -1
	}
	resps, err := adm.CreateTopics(ctx, partitions, int16(rf), nil, all...)
	if err != nil {
		return fmt.Errorf("kafka.EnsureTopics: %w", err)
	}
	var errs, existing []string
	for _, r := range resps.Sorted() {
		switch {
		case r.Err == nil:
		case errors.Is(r.Err, kerr.TopicAlreadyExists):
			existing = append(existing, r.Topic)
		default:
			errs = append(errs, fmt.Sprintf("topic %s: %v", r.Topic, r.Err))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("kafka.EnsureTopics: %v", errs)
	}
	if set.Logger != nil && len(existing) > 0 {
		details, err := adm.ListTopics(ctx, existing...)
		if err != nil {
			return nil // only a report
		}
		for _, d := range details.Sorted() {
			got := len(d.Partitions)
			replicas := 0
			if got > 0 {
				replicas = len(d.Partitions.Sorted()[0].Replicas)
			}
			if (partitions > 0 && got < int(partitions)) || replicas < rf {
				set.Logger.Warn("an existing topic has fewer partitions or replicas than HYSCRIBE_KAFKA_PARTITIONS and HYSCRIBE_KAFKA_REPLICATION_FACTOR ask; it is left as it is (kafka-topics.sh --alter raises partitions, kafka-reassign-partitions.sh replicas)",
					"topic", d.Topic, "partitions", got, "wantPartitions", partitions, "replicas", replicas, "wantReplicas", rf)
			}
		}
	}
	return nil
}

// ReplicationFor is the replication factor topics are created with: asked
// (0: DefaultReplicationFactor capped at the brokers), checked against the
// cluster's brokers.
func ReplicationFor(asked, brokers int) (int, error) {
	switch {
	case asked < 0:
		return 0, fmt.Errorf("HYSCRIBE_KAFKA_REPLICATION_FACTOR must not be negative, not %d", asked)
	case brokers <= 0:
		return 0, errors.New("kafka.EnsureTopics: the cluster reports no broker")
	case asked == 0:
		return min(DefaultReplicationFactor, brokers), nil
	case asked > brokers:
		return 0, fmt.Errorf("HYSCRIBE_KAFKA_REPLICATION_FACTOR is %d but the Kafka cluster has %d broker(s): a topic cannot have more replicas than brokers; lower it or add brokers", asked, brokers)
	}
	return asked, nil
}
