package kafka

import (
	"context"
	"errors"
	"fmt"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/hyscribe/hyscribe/domain"
)

// EnsureTopics creates each topic and its dead-letter twin (domain.DLQ) with
// the given partition count (<= 0: the broker's default) and the broker's
// default replication factor. Topics that already exist are left as they
// are, whatever their partition count.
func EnsureTopics(ctx context.Context, brokers []string, topics []string, partitions int32) error {
	if len(topics) == 0 {
		return nil
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
	if err != nil {
		return fmt.Errorf("kafka.EnsureTopics: %w", err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)

	all := make([]string, 0, 2*len(topics))
	for _, t := range topics {
		all = append(all, t, domain.DLQ(t))
	}
	if partitions <= 0 {
		partitions = -1
	}
	resps, err := adm.CreateTopics(ctx, partitions, -1, nil, all...)
	if err != nil {
		return fmt.Errorf("kafka.EnsureTopics: %w", err)
	}
	var errs []error
	for _, r := range resps.Sorted() {
		if r.Err != nil && !errors.Is(r.Err, kerr.TopicAlreadyExists) {
			errs = append(errs, fmt.Errorf("topic %s: %w", r.Topic, r.Err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("kafka.EnsureTopics: %w", err)
	}
	return nil
}
