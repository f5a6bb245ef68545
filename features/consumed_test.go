package features

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/domain"
)

// consumedRecord is one record about a job in a stage's topics.
type consumedRecord struct {
	topic     string
	partition int32
	offset    int64
	event     domain.Event
}

// waitConsumed waits until the stage's consumer group has handled every
// record about docID in the stage's topics, and at least one for which want
// is true: the premise of a step that says the stage did nothing about the
// job (without it, "nothing arrived" holds as well for a stage that never
// looked). It returns the records.
func (in *instance) waitConsumed(stage, docID string, want func(domain.Event) bool) ([]consumedRecord, error) {
	st, ok := app.StageNamed(stage)
	if !ok {
		return nil, fmt.Errorf("no stage %q", stage)
	}
	group := "hyscribe-" + st.Name
	ctx, cancel := context.WithTimeout(context.Background(), eventDeadline)
	defer cancel()
	var last error
	for {
		recs, err := in.recordsAbout(ctx, st.Topics, docID)
		if err == nil {
			err = consumedBy(ctx, in.svc.Brokers(), group, recs, want)
		}
		if err == nil {
			return recs, nil
		}
		last = err
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("stage %s never handled the events about job %s: %w", stage, docID, last)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// recordsAbout reads topics from the start to their current end and returns
// the records keyed by docID (domain.Event.Key).
func (in *instance) recordsAbout(ctx context.Context, topics []string, docID string) ([]consumedRecord, error) {
	adm, err := kgo.NewClient(kgo.SeedBrokers(in.svc.Brokers()...))
	if err != nil {
		return nil, err
	}
	defer adm.Close()
	ends, err := kadm.NewClient(adm).ListEndOffsets(ctx, topics...)
	if err != nil {
		return nil, err
	}
	if err := ends.Error(); err != nil {
		return nil, err
	}
	todo := map[string]map[int32]kgo.Offset{}
	left := map[string]map[int32]int64{}
	ends.Each(func(o kadm.ListedOffset) {
		if o.Offset <= 0 {
			return
		}
		if todo[o.Topic] == nil {
			todo[o.Topic], left[o.Topic] = map[int32]kgo.Offset{}, map[int32]int64{}
		}
		todo[o.Topic][o.Partition] = kgo.NewOffset().AtStart()
		left[o.Topic][o.Partition] = o.Offset
	})
	if len(todo) == 0 {
		return nil, nil
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(in.svc.Brokers()...), kgo.ConsumePartitions(todo))
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	var out []consumedRecord
	for len(left) > 0 {
		fs := cl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		for _, fe := range fs.Errors() {
			return nil, fmt.Errorf("reading %s/%d: %w", fe.Topic, fe.Partition, fe.Err)
		}
		fs.EachRecord(func(r *kgo.Record) {
			if end, ok := left[r.Topic][r.Partition]; ok && r.Offset+1 >= end {
				delete(left[r.Topic], r.Partition)
				if len(left[r.Topic]) == 0 {
					delete(left, r.Topic)
				}
			}
			if string(r.Key) != docID {
				return
			}
			var ev domain.Event
			if err := json.Unmarshal(r.Value, &ev); err != nil {
				return
			}
			ev.Topic = r.Topic
			out = append(out, consumedRecord{topic: r.Topic, partition: r.Partition, offset: r.Offset, event: ev})
		})
	}
	return out, nil
}

// consumedBy says whether group has committed past every record of recs,
// and whether one of them satisfies want.
func consumedBy(ctx context.Context, brokers []string, group string, recs []consumedRecord, want func(domain.Event) bool) error {
	found := false
	for _, r := range recs {
		found = found || want(r.event)
	}
	if !found {
		return fmt.Errorf("none of the %d records about the job is the one looked for (yet)", len(recs))
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
	if err != nil {
		return err
	}
	defer cl.Close()
	committed, err := kadm.NewClient(cl).FetchOffsets(ctx, group)
	if err != nil {
		return err
	}
	for _, r := range recs {
		c, ok := committed.Lookup(r.topic, r.partition)
		if !ok || c.Err != nil || c.At <= r.offset {
			return errors.New("the group has not committed past " + fmt.Sprintf("%s/%d@%d", r.topic, r.partition, r.offset))
		}
	}
	return nil
}
