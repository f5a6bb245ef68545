package app

import (
	"context"
	"fmt"
	"time"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// validateQA checks the QA settings of an account change: a time zone the
// binary knows (its zone data is compiled in) and a channel.
func validateQA(c AccountChanges) error {
	if c.TimeZone != nil && *c.TimeZone != "" {
		if _, err := LoadZone(*c.TimeZone); err != nil {
			return domain.Invalid("invalid_time_zone", "time zone %q is not an IANA zone such as Asia/Yerevan", *c.TimeZone)
		}
	}
	if c.AgentChannel != nil && !domain.ValidChannel(*c.AgentChannel) {
		return domain.Invalid("invalid_channel", "agent channel must be \"left\", \"right\" or empty, not %q", *c.AgentChannel)
	}
	return nil
}

// LoadZone loads an IANA time zone by name. "Local" and "" are refused:
// they would mean the server's zone, not the account's.
func LoadZone(name string) (*time.Location, error) {
	if name == "" || name == "Local" {
		return nil, fmt.Errorf("no zone %q", name)
	}
	return time.LoadLocation(name)
}

// NameSpeakers sets the roles and names of a phone call's speakers
// (domain.Job.NameSpeakers). The call's analysis is not redone: it is
// what the receiver got in analysis_ready (docs/webapp.md, "Speaker
// roles"). It reports whether a role changed.
func (uc *Recordings) NameSpeakers(ctx context.Context, account domain.AccountID, doc domain.DocID, names map[string]domain.SpeakerName) (bool, error) {
	if _, err := uc.job(ctx, account, doc); err != nil {
		return false, err
	}
	var changed bool
	err := uc.jobs.UpdateJob(ctx, doc, func(j *domain.Job, _ *domain.Account) ([]domain.Event, error) {
		var err error
		changed, err = j.NameSpeakers(names)
		return nil, err
	})
	if err != nil {
		return false, fmt.Errorf("name speakers: %w", err)
	}
	return changed, nil
}

// analyzeByRole answers questions about j with az, each question from the
// words it may read (domain.GroupByRole): a question limited to the agent
// reads only the agent's lines, so the customer's "ցտեսություն" does not
// answer "did the agent say goodbye?". A role nobody has in the call makes
// its questions "unclear".
func analyzeByRole(ctx context.Context, az ports.ChecklistAnalyzer, j domain.Job, agentChannel string, questions []domain.Question) (map[string]domain.QuestionResult, error) {
	groups := domain.GroupByRole(j, j.SpeakerRoles(agentChannel), questions)
	out := make(map[string]domain.QuestionResult, len(questions))
	for _, g := range groups {
		if g.Unknown {
			for _, q := range g.Questions {
				out[q.ID] = domain.QuestionResult{Question: q.Text, Answer: domain.AnswerUnclear, Evidence: []domain.Evidence{},
					Reason: domain.RoleUnknownReason(g.Role)}
			}
			continue
		}
		in := ports.AnalysisInput{Type: j.Type, Transcription: j.Transcription, Segments: j.Segments}
		if g.Role != "" {
			in.Segments, in.Transcription = g.Segments, domain.SpeakerText(g.Segments)
		}
		res, err := az.Analyze(ctx, in, g.Questions)
		if err != nil {
			return nil, err
		}
		for _, q := range g.Questions {
			if r, ok := res[q.ID]; ok {
				out[q.ID] = r
			}
		}
	}
	return out, nil
}

// jobAndChannel reads a job and its account's agent channel (empty when
// the store cannot read them together).
func jobAndChannel(ctx context.Context, jobs ports.JobStore, doc domain.DocID) (domain.Job, string, error) {
	if r, ok := jobs.(ports.JobAccountReader); ok {
		j, a, err := r.GetJobAndAccount(ctx, doc)
		return j, a.AgentChannel, err
	}
	j, err := jobs.GetJob(ctx, doc)
	return j, "", err
}
