package app

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// validateQA checks the QA settings of an account change: a time zone the
// binary knows (its zone data is compiled in) and a channel.
func validateQA(c AccountChanges) error {
	if c.TimeZone != nil && *c.TimeZone != "" {
		if _, err := LoadZone(*c.TimeZone); err != nil {
			shown := []rune(*c.TimeZone)
			if len(shown) > domain.MaxZoneNameLen {
				shown = append(shown[:domain.MaxZoneNameLen], '…')
			}
			return domain.Invalid("invalid_time_zone", "time zone %q is not an IANA zone name such as Asia/Yerevan, spelled as the zone names itself", string(shown))
		}
	}
	if c.AgentChannel != nil && !domain.ValidChannel(*c.AgentChannel) {
		return domain.Invalid("invalid_channel", "agent channel must be \"left\", \"right\" or empty, not %q", *c.AgentChannel)
	}
	return nil
}

// LoadZone loads an IANA time zone by its one canonical spelling. "Local"
// and "" are refused: they would mean the server's zone, not the
// account's. time.LoadLocation reads the zone directory by path, so it
// also takes "./Asia/Yerevan" and "././Asia/Yerevan"; each such spelling
// is refused (domain.ZoneNameSyntax), and so is any name the loaded zone
// does not call itself.
func LoadZone(name string) (*time.Location, error) {
	if name == "Local" || !domain.ZoneNameSyntax(name) {
		return nil, fmt.Errorf("app.LoadZone: no zone %q", name)
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, fmt.Errorf("app.LoadZone: %w", err)
	}
	if loc.String() != name {
		return nil, fmt.Errorf("app.LoadZone: %q is not a zone's own name", name)
	}
	return loc, nil
}

// NameSpeakers sets the roles and names of a phone call's speakers
// (domain.Job.NameSpeakers). It reports whether any speaker's role, as
// the analysis reads it (with the account's agent channel), changed: the
// caller then has the call analysed again (AnalyzeTranscript.Reanalyze).
type NameSpeakers struct {
	jobs  speakerJobs
	limit *RateLimit
}

// speakerJobs reads a job with its account (for the roles its channel
// gives) and updates it.
type speakerJobs interface {
	ports.JobStore
	ports.JobAccountReader
}

// NewNameSpeakers builds the use case.
func NewNameSpeakers(jobs speakerJobs, limit *RateLimit) *NameSpeakers {
	need("jobs", jobs)
	need("limit", limit)
	return &NameSpeakers{jobs: jobs, limit: limit}
}

// Role changes, each of which may analyse a call again (up to two
// chat-model requests and an analysis_ready event): RoleChangesPerCall a
// minute on one call (a swap and its correction, with room for a slip) and
// RoleChangesPerAccount a minute in the whole account (a QA team naming
// the speakers of a queue of calls, one call every few seconds). Past
// either, the change is refused and nothing is saved.
const (
	RoleChangesPerCall    = 3
	RoleChangesPerAccount = 10
	scopeRolesCall        = "speakers-call"
	scopeRolesAccount     = "speakers-account"
)

// RoleChangesError is a role change refused by RoleChangesPerCall or
// RoleChangesPerAccount.
type RoleChangesError struct {
	PerCall bool // the call's bound, else the account's
	Limit   int
}

func (e *RoleChangesError) Error() string {
	if e.PerCall {
		return fmt.Sprintf("the speakers' roles of this call were changed %d times this minute, the most allowed: wait a minute", e.Limit)
	}
	return fmt.Sprintf("speakers' roles were changed %d times this minute in this account, the most allowed: wait a minute", e.Limit)
}

// Is makes errors.Is(err, domain.ErrRateLimited) hold.
func (e *RoleChangesError) Is(target error) bool { return target == domain.ErrRateLimited }

// Handle runs the use case (NameSpeakers) for a person of role. Only a
// role that may name speakers (domain.Role.MayNameSpeakers) may; others get
// domain.ErrForbidden. A change of who has which role counts against the
// bounds above before it is saved; a change of names only does not.
func (uc *NameSpeakers) Handle(ctx context.Context, account domain.AccountID, role domain.Role, doc domain.DocID, names map[string]domain.SpeakerName) (bool, error) {
	if !role.MayNameSpeakers() {
		return false, fmt.Errorf("name speakers: only an owner or a QA analyst may name a call's speakers: %w", domain.ErrForbidden)
	}
	if _, err := shownJob(ctx, uc.jobs, account, doc); err != nil {
		return false, err
	}
	if err := uc.countRoleChange(ctx, doc, names); err != nil {
		return false, err
	}
	var changed bool
	err := uc.jobs.UpdateJob(ctx, doc, func(j *domain.Job, a *domain.Account) ([]domain.Event, error) {
		before := j.SpeakerRoles(a.AgentChannel)
		if _, err := j.NameSpeakers(names); err != nil {
			return nil, err
		}
		// What counts is who has which role in the end: confirming the
		// roles the account's channel gave changes nothing.
		changed = !domain.SameRoles(before, j.SpeakerRoles(a.AgentChannel))
		return nil, nil
	})
	if err != nil {
		return false, fmt.Errorf("name speakers: %w", err)
	}
	return changed, nil
}

// countRoleChange counts names against the role-change bounds when they
// would give a speaker another role; a refusal is a *RoleChangesError.
func (uc *NameSpeakers) countRoleChange(ctx context.Context, doc domain.DocID, names map[string]domain.SpeakerName) error {
	j, a, err := uc.jobs.GetJobAndAccount(ctx, doc)
	if err != nil {
		return fmt.Errorf("name speakers: %w", err)
	}
	before := j.SpeakerRoles(a.AgentChannel)
	if _, err := j.NameSpeakers(names); err != nil {
		return err
	}
	if domain.SameRoles(before, j.SpeakerRoles(a.AgentChannel)) {
		return nil
	}
	if err := uc.limit.Allow(ctx, scopeRolesCall, string(a.ID)+":"+string(doc), RoleChangesPerCall); err != nil {
		return limitedAs(err, &RoleChangesError{PerCall: true, Limit: RoleChangesPerCall})
	}
	if err := uc.limit.Allow(ctx, scopeRolesAccount, string(a.ID), RoleChangesPerAccount); err != nil {
		return limitedAs(err, &RoleChangesError{Limit: RoleChangesPerAccount})
	}
	return nil
}

// limitedAs is refusal when err is a rate-limit refusal, else err wrapped.
func limitedAs(err, refusal error) error {
	if errors.Is(err, domain.ErrRateLimited) {
		return refusal
	}
	return fmt.Errorf("name speakers: %w", err)
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

// jobAndChannel reads a job and its account's agent channel.
func jobAndChannel(ctx context.Context, jobs ports.JobAccountReader, doc domain.DocID) (domain.Job, string, error) {
	j, a, err := jobs.GetJobAndAccount(ctx, doc)
	return j, a.AgentChannel, err
}

// Reanalyze makes the analysis of one of the account's calls again after
// its speakers were given other roles, when its checklist version has
// questions limited to a role (the others' answers would not change). The
// analysis keeps its ID; its new results replace the old ones and a new
// analysis.ready event announces them (domain.NewAnalysisAgainEvent). It
// reports whether the call was analysed again.
func (uc *AnalyzeTranscript) Reanalyze(ctx context.Context, account domain.AccountID, doc domain.DocID) (bool, error) {
	j, agentChannel, err := jobAndChannel(ctx, uc.jobs, doc)
	if err != nil || j.AccountID != account {
		return false, notFoundUnless(err, "reanalyze")
	}
	if j.ChecklistID == "" || j.Status != domain.StatusTranscribed {
		return false, nil
	}
	prev, err := uc.analyses.AnalysisByDoc(ctx, doc)
	if errors.Is(err, domain.ErrNotFound) {
		return false, nil // not analysed yet: the stage will use the new roles
	}
	if err != nil {
		return false, fmt.Errorf("reanalyze: %w", err)
	}
	c, err := uc.checklists.GetChecklistVersion(ctx, j.AccountID, j.ChecklistID, j.ChecklistVersion)
	if errors.Is(err, domain.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("reanalyze: %w", err)
	}
	if !slices.ContainsFunc(c.Questions, func(q domain.Question) bool { return q.Role != "" }) {
		return false, nil
	}
	results, err := analyzeByRole(ctx, uc.analyzer, j, agentChannel, c.Questions)
	if err != nil && uc.fallback != nil && !domain.IsPermanent(err) {
		uc.log.Warn("checklist analyser failed; using the built-in one", "docId", j.ID, "err", err)
		results, err = analyzeByRole(ctx, uc.fallback, j, agentChannel, c.Questions)
	}
	if err != nil {
		return false, fmt.Errorf("reanalyze: %w", err)
	}
	a := domain.NewAnalysis(prev.ID, j, c, results, uc.clock.Now()).WithListScore(domain.ChecklistWeights(c))
	ev := domain.NewAnalysisAgainEvent(a, j, domain.ChecklistWeights(c), a.CreatedAt)
	if err := uc.analyses.ReplaceAnalysis(ctx, a, []domain.Event{ev}); err != nil {
		return false, fmt.Errorf("reanalyze: %w", err)
	}
	uc.log.Info("analysis made again", "docId", j.ID, "analysisId", a.ID)
	return true, nil
}

// notFoundUnless is err wrapped for op, or domain.ErrNotFound when the job
// belongs to another account (err nil).
func notFoundUnless(err error, op string) error {
	if err == nil {
		return fmt.Errorf("%s: %w", op, domain.ErrNotFound)
	}
	return fmt.Errorf("%s: %w", op, err)
}
