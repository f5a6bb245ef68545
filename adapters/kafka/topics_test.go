package kafka

import (
	"context"
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"
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
