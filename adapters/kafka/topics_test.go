package kafka

import (
	"context"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/hyscribe/hyscribe/domain"
)

// EnsureTopics creates each topic with its DLQ twin and may run again.
func TestEnsureTopicsTwice(t *testing.T) {
	t.Parallel()
	e := startCluster(t)
	ensureTopics(t, e.Addrs(), 6, domain.TopicAudioUploaded, domain.TopicJobStatus)
	ensureTopics(t, e.Addrs(), 6, domain.Topics...)

	cl, err := kgo.NewClient(kgo.SeedBrokers(e.Addrs()...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	details, err := kadm.NewClient(cl).ListTopics(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, topic := range domain.Topics {
		for _, name := range []string{topic, domain.DLQ(topic)} {
			d, ok := details[name]
			if !ok {
				t.Errorf("topic %s missing", name)
				continue
			}
			if len(d.Partitions) != 6 {
				t.Errorf("topic %s has %d partitions", name, len(d.Partitions))
			}
		}
	}
}

func TestPublishRejectsEventWithoutTopic(t *testing.T) {
	t.Parallel()
	e := startCluster(t)
	ev := testEvent("", "doc-1", 0)
	if err := newPublisher(t, e.Addrs()).Publish(context.Background(), []domain.Event{ev}); err == nil {
		t.Fatal("no error")
	}
}

// The replication factor is a setting checked against the cluster's
// brokers: by default 3 on a cluster of 3 (not the broker's default of 1),
// every broker on a smaller one, and more replicas than brokers refused
// with a message naming the variable.
func TestEnsureTopicsReplicationFactor(t *testing.T) {
	t.Parallel()
	three, err := StartEmbedded("127.0.0.1:0", "", 2, kfake.NumBrokers(3))
	if err != nil {
		t.Fatal(err)
	}
	defer three.Close()
	ctx := context.Background()
	replicas := func(brokers []string, topic string) (partitions, replicas int) {
		cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
		if err != nil {
			t.Fatal(err)
		}
		defer cl.Close()
		d, err := kadm.NewClient(cl).ListTopics(ctx, topic)
		if err != nil || d[topic].Err != nil {
			t.Fatalf("%s: %v %v", topic, err, d[topic].Err)
		}
		return len(d[topic].Partitions), len(d[topic].Partitions.Sorted()[0].Replicas)
	}
	if err := EnsureTopics(ctx, three.Addrs(), []string{domain.TopicJobStatus}, TopicSettings{Partitions: 4}); err != nil {
		t.Fatal(err)
	}
	for _, topic := range []string{domain.TopicJobStatus, domain.DLQ(domain.TopicJobStatus)} {
		if p, r := replicas(three.Addrs(), topic); p != 4 || r != 3 {
			t.Errorf("%s: %d partitions of %d replicas, want 4 of 3", topic, p, r)
		}
	}
	if err := EnsureTopics(ctx, three.Addrs(), []string{domain.TopicAudioUploaded}, TopicSettings{Partitions: 2, ReplicationFactor: 2}); err != nil {
		t.Fatal(err)
	}
	if _, r := replicas(three.Addrs(), domain.TopicAudioUploaded); r != 2 {
		t.Errorf("replication factor 2 gave %d replicas", r)
	}
	err = EnsureTopics(ctx, three.Addrs(), []string{domain.TopicAudioProcessed}, TopicSettings{Partitions: 2, ReplicationFactor: 4})
	if err == nil || !strings.Contains(err.Error(), "HYSCRIBE_KAFKA_REPLICATION_FACTOR") || !strings.Contains(err.Error(), "3 broker") {
		t.Fatalf("4 replicas on 3 brokers: %v", err)
	}

	one := startCluster(t)
	if err := EnsureTopics(ctx, one.Addrs(), []string{domain.TopicJobStatus}, TopicSettings{Partitions: 2}); err != nil {
		t.Fatal(err)
	}
	if _, r := replicas(one.Addrs(), domain.TopicJobStatus); r != 1 {
		t.Errorf("one broker: %d replicas", r)
	}
	if err := EnsureTopics(ctx, one.Addrs(), []string{domain.TopicJobStatus}, TopicSettings{Partitions: 2, ReplicationFactor: 3}); err == nil {
		t.Error("3 replicas on 1 broker accepted")
	}
}
