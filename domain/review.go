package domain

import (
	"encoding/json"
	"maps"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// MayReview reports whether a person of role r may review a call's
// analysis: accept or override the machine's answers, comment, mark the
// call reviewed (issue 36). A review changes the call's score and sends
// the account's receiver analysis_reviewed: it is the QA analyst's work,
// and the owner's; a read-only member may not (docs/webapp.md, Roles).
func (r Role) MayReview() bool { return r == RoleOwner || r == RoleAnalyst }

// Bounds of a review (docs/decisions.md, Review of an analysis).
const (
	MaxReviewReasonRunes  = 500
	MaxReviewCommentRunes = 2000
)

// ReviewedAnswer is one question's answer as reviewed: the machine's when
// the analyst accepted it, the analyst's when overridden (then with a
// reason).
type ReviewedAnswer struct {
	Answer     string `json:"answer"`
	Overridden bool   `json:"overridden"`
	Reason     string `json:"reason,omitempty"`
}

// Review is a person's review of a call's analysis. One per call: a new
// review replaces the last one and takes the next Revision.
type Review struct {
	AnalysisID string
	DocID      DocID
	AccountID  AccountID
	// AnalysedAt is the CreatedAt of the analysis reviewed. When the call
	// is analysed again (its speakers got other roles) the review is kept
	// but Stale: its answers were given to results that are gone.
	AnalysedAt time.Time
	Answers    map[string]ReviewedAnswer // by question id: every question of the analysis
	Comment    string
	ReviewerID string
	Reviewer   string // the reviewer's e-mail when they reviewed
	ReviewedAt time.Time
	Revision   int
	Stale      bool
	// ListScore is the reviewed call's score as the history sorts and
	// filters by it (Analysis.ListScore of a.Reviewed(r), set by the use
	// case that makes the review): while the review is current the store
	// writes it where the analysis's list score is, in the review's
	// transaction. It is not part of the stored review: a review read
	// back has none; nil is also "not scored".
	ListScore *float64
}

// ReviewChoice is what an analyst chose for one question: an answer
// (the machine's accepts it) and a reason (required for an override).
type ReviewChoice struct {
	Answer string
	Reason string
}

// ReviewInput is a submitted review: a choice per question (a question
// left out is accepted as the machine answered it) and a call-level comment.
type ReviewInput struct {
	Choices map[string]ReviewChoice
	Comment string
}

// Reviewer is who submits a review.
type Reviewer struct {
	ID    string
	Email string
}

// NewReview is the review of analysis a made of in by who at now, given
// the call's current review prev (nil when none). It reports changed false
// — and returns prev — when in says exactly what prev says about this
// analysis: the same review submitted twice is one review (one event).
// A failed analysis has no answers to review; an answer outside yes, no,
// unclear, an override without a reason and text past the bounds are
// refused with a ValidationError.
func NewReview(a Analysis, prev *Review, in ReviewInput, who Reviewer, now time.Time) (Review, bool, error) {
	if a.Status != AnalysisOK {
		return Review{}, false, Invalid("analysis_failed", "the analysis failed: there are no answers to review")
	}
	comment := strings.TrimSpace(in.Comment)
	if n := utf8.RuneCountInString(comment); n > MaxReviewCommentRunes {
		return Review{}, false, Invalid("comment_too_long", "the comment is %d characters; at most %d are allowed", n, MaxReviewCommentRunes)
	}
	for qid := range in.Choices {
		if _, ok := a.Results[qid]; !ok {
			return Review{}, false, Invalid("unknown_question", "question %q is not in this call's analysis", clipText(qid, MaxQuestionIDBytes))
		}
	}
	answers := make(map[string]ReviewedAnswer, len(a.Results))
	for qid, r := range a.Results {
		ch, ok := in.Choices[qid]
		if !ok || ch.Answer == "" {
			ch.Answer = r.Answer
		}
		if !ValidAnswer(ch.Answer) {
			return Review{}, false, Invalid("invalid_answer", "question %q: the answer must be yes, no or unclear, not %q", qid, clipText(ch.Answer, 20))
		}
		reason := strings.TrimSpace(ch.Reason)
		if n := utf8.RuneCountInString(reason); n > MaxReviewReasonRunes {
			return Review{}, false, Invalid("reason_too_long", "question %q: the reason is %d characters; at most %d are allowed", qid, n, MaxReviewReasonRunes)
		}
		overridden := ch.Answer != r.Answer
		if overridden && reason == "" {
			return Review{}, false, Invalid("reason_required", "question %q: say why the answer is %s and not %s", qid, ch.Answer, r.Answer)
		}
		answers[qid] = ReviewedAnswer{Answer: ch.Answer, Overridden: overridden, Reason: reason}
	}
	if prev != nil && !prev.Stale && prev.AnalysisID == a.ID && prev.AnalysedAt.Equal(a.CreatedAt) &&
		prev.Comment == comment && maps.Equal(prev.Answers, answers) {
		return *prev, false, nil
	}
	rev := 1
	if prev != nil {
		rev = prev.Revision + 1
	}
	return Review{
		AnalysisID: a.ID, DocID: a.DocID, AccountID: a.AccountID, AnalysedAt: a.CreatedAt,
		Answers: answers, Comment: comment, ReviewerID: who.ID, Reviewer: who.Email,
		ReviewedAt: now.UTC(), Revision: rev,
	}, true, nil
}

// Current reports whether r reviews analysis a as it is now (not a
// review of results the call had before it was analysed again).
func (r Review) Current(a Analysis) bool {
	return !r.Stale && r.AnalysisID == a.ID && r.AnalysedAt.Equal(a.CreatedAt)
}

// AnswerScore is the score of an answer a person gave: yes 1, else 0.
func AnswerScore(answer string) float64 {
	if answer == AnswerYes {
		return 1
	}
	return 0
}

// Reviewed is a as r answers it: an overridden question takes the
// analyst's answer, its score (AnswerScore) and reason; an accepted one
// stays the machine's. Its score is ScoreOf(a.Reviewed(r), weights) — the
// one rule of the machine's score.
func (a Analysis) Reviewed(r Review) Analysis {
	out := a
	out.Results = make(map[string]QuestionResult, len(a.Results))
	for qid, res := range a.Results {
		if ra, ok := r.Answers[qid]; ok && ra.Overridden {
			res.Answer, res.Score, res.Reason = ra.Answer, AnswerScore(ra.Answer), ra.Reason
		}
		out.Results[qid] = res
	}
	return out
}

// TopicAnalysisReviewed carries every review of an analysis (one per
// changed review; docs/events.md).
const TopicAnalysisReviewed = "hyscribe.analysis.reviewed.v1"

// EventAnalysisReviewed is the receivers' event of a review.
const EventAnalysisReviewed = "analysis_reviewed"

// ReviewedResult is one question of a review as events carry it: the
// machine's answer and score beside the reviewed ones.
type ReviewedResult struct {
	Question      string  `json:"question"`
	MachineAnswer string  `json:"machineAnswer"`
	MachineScore  float64 `json:"machineScore"`
	Answer        string  `json:"answer"`
	Score         float64 `json:"score"`
	Overridden    bool    `json:"overridden"`
	Reason        string  `json:"reason"`
}

// ReviewerRef is a reviewer as events name them.
type ReviewerRef struct {
	ID    string `json:"id"`
	Email string `json:"email"`
}

// AnalysisReviewedData is the data of hyscribe.analysis.reviewed.v1.
type AnalysisReviewedData struct {
	AnalysisID       string                    `json:"analysisId"`
	ChecklistID      string                    `json:"checklistId"`
	ChecklistVersion int                       `json:"checklistVersion"`
	ChecklistName    string                    `json:"checklistName"`
	Weights          map[string]float64        `json:"weights"`
	Revision         int                       `json:"revision"`
	Reviewer         ReviewerRef               `json:"reviewer"`
	ReviewedAt       time.Time                 `json:"reviewedAt"`
	AnalysedAt       time.Time                 `json:"analysedAt"`
	Comment          string                    `json:"comment"`
	MachineScore     float64                   `json:"machineScore"`
	ReviewedScore    float64                   `json:"reviewedScore"`
	Answers          map[string]ReviewedResult `json:"answers"`
	Metadata         json.RawMessage           `json:"metadata"`
}

// AnalysisReviewedEventID is the ID of a call's review of revision rev:
// a review submitted twice is one revision, so one event.
func AnalysisReviewedEventID(doc DocID, rev int) string {
	return string(doc) + "/analysis.reviewed/" + strconv.Itoa(rev)
}

// NewAnalysisReviewedData is the event data of review r of analysis a,
// with the checklist version's weights and the job's metadata.
func NewAnalysisReviewedData(a Analysis, r Review, weights map[string]float64, metadata json.RawMessage) AnalysisReviewedData {
	if weights == nil {
		weights = map[string]float64{}
	}
	reviewed := a.Reviewed(r)
	d := AnalysisReviewedData{
		AnalysisID: a.ID, ChecklistID: a.ChecklistID, ChecklistVersion: a.ChecklistVersion, ChecklistName: a.ChecklistName,
		Weights: weights, Revision: r.Revision, Reviewer: ReviewerRef{ID: r.ReviewerID, Email: r.Reviewer},
		ReviewedAt: r.ReviewedAt.UTC(), AnalysedAt: a.CreatedAt.UTC(), Comment: r.Comment,
		MachineScore: ScoreOf(a, weights).Value, ReviewedScore: ScoreOf(reviewed, weights).Value,
		Answers: make(map[string]ReviewedResult, len(a.Results)), Metadata: objectOrEmpty(metadata),
	}
	for qid, m := range a.Results {
		rv := reviewed.Results[qid]
		ra := r.Answers[qid]
		d.Answers[qid] = ReviewedResult{Question: m.Question, MachineAnswer: m.Answer, MachineScore: m.Score,
			Answer: rv.Answer, Score: rv.Score, Overridden: ra.Overridden, Reason: ra.Reason}
	}
	return d
}

// NewAnalysisReviewedEvent is the hyscribe.analysis.reviewed.v1 event of
// review r of analysis a.
func NewAnalysisReviewedEvent(a Analysis, r Review, weights map[string]float64, metadata json.RawMessage) Event {
	b, _ := json.Marshal(NewAnalysisReviewedData(a, r, weights, metadata)) // plain data; cannot fail
	return Event{
		ID: AnalysisReviewedEventID(a.DocID, r.Revision), Topic: TopicAnalysisReviewed, Type: eventType(TopicAnalysisReviewed),
		Version: EnvelopeVersion, OccurredAt: r.ReviewedAt.UTC(), DocID: a.DocID, AccountID: a.AccountID, Data: b,
	}
}

// AnalysisReviewedPayload is the receivers' analysis_reviewed event
// (docs/decisions.md, Review of an analysis): the review with the
// machine's answers beside the reviewed ones.
type AnalysisReviewedPayload struct {
	EventType     string                    `json:"event_type"`
	Secret        string                    `json:"secret"`
	DocID         DocID                     `json:"docId"`
	AnalysisID    string                    `json:"analysisId"`
	ChecklistID   string                    `json:"checklistId"`
	ChecklistName string                    `json:"checklistName"`
	Revision      int                       `json:"revision"`
	Reviewer      ReviewerRef               `json:"reviewer"`
	ReviewedAt    time.Time                 `json:"reviewedAt"`
	Comment       string                    `json:"comment"`
	MachineScore  float64                   `json:"machineScore"`
	ReviewedScore float64                   `json:"reviewedScore"`
	Answers       map[string]ReviewedResult `json:"answers"`
	Metadata      json.RawMessage           `json:"metadata"`
	Link          string                    `json:"link"`
}

// NewAnalysisReviewed builds the analysis_reviewed payload from an
// analysis.reviewed event's data.
func NewAnalysisReviewed(doc DocID, d AnalysisReviewedData, secret, publicURL string) AnalysisReviewedPayload {
	p := AnalysisReviewedPayload{
		EventType: EventAnalysisReviewed, Secret: secret, DocID: doc, AnalysisID: d.AnalysisID,
		ChecklistID: d.ChecklistID, ChecklistName: d.ChecklistName, Revision: d.Revision, Reviewer: d.Reviewer,
		ReviewedAt: d.ReviewedAt.UTC(), Comment: d.Comment, MachineScore: d.MachineScore, ReviewedScore: d.ReviewedScore,
		Answers: d.Answers, Metadata: objectOrEmpty(d.Metadata), Link: RecordingLink(publicURL, doc),
	}
	if p.Answers == nil {
		p.Answers = map[string]ReviewedResult{}
	}
	return p
}

// MarshalJSON writes reviewedAt and analysedAt in TimeFormat.
func (d AnalysisReviewedData) MarshalJSON() ([]byte, error) {
	type fields AnalysisReviewedData
	return json.Marshal(struct {
		fields
		ReviewedAt string `json:"reviewedAt"`
		AnalysedAt string `json:"analysedAt"`
	}{fields(d), FormatTime(d.ReviewedAt), FormatTime(d.AnalysedAt)})
}

// MarshalJSON writes reviewedAt in TimeFormat.
func (p AnalysisReviewedPayload) MarshalJSON() ([]byte, error) {
	type fields AnalysisReviewedPayload
	return json.Marshal(struct {
		fields
		ReviewedAt string `json:"reviewedAt"`
	}{fields(p), FormatTime(p.ReviewedAt)})
}
