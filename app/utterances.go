package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// utterances is how TranscribeAudio gets a phone call right from an engine
// that gives text without times (OpenAI's gpt-4o transcribe models, an
// engine answering json, speaches without words): each channel is cut at
// its pauses into utterance-sized pieces, each piece is sent alone, and
// its text takes the piece's time (and, in a mono call, the speaker the
// diarizer found there).
type utterances struct {
	speech   ports.SpeechFinder
	cutter   ports.SpanCutter
	textOnly func() bool // the engine is known to give no times (its profile)
	// noWords is set once an answer to a call came without word times:
	// later calls are cut at once instead of sending each call twice.
	noWords atomic.Bool
}

// cutFirst reports whether calls go to the engine as utterances at once.
func (u *utterances) cutFirst() bool {
	return (u.textOnly != nil && u.textOnly()) || u.noWords.Load()
}

func (u *utterances) sawNoWords(log *slog.Logger, what string) {
	if !u.noWords.Swap(true) {
		log.Warn("the speech engine answered a call without word times; calls are cut into utterances from now on", "call", what)
	}
}

// WithUtterances makes phone calls right with engines that give no word
// times: speech finds each channel's pauses, cutter writes the utterances.
// textOnly (nil: never) says the engine is known to give no times, so
// calls are cut at once; otherwise they are cut once an answer to a call
// came without word times.
func WithUtterances(speech ports.SpeechFinder, cutter ports.SpanCutter, textOnly func() bool) TranscribeOption {
	need("speech finder", speech)
	need("span cutter", cutter)
	return func(uc *TranscribeAudio) { uc.utter = &utterances{speech: speech, cutter: cutter, textOnly: textOnly} }
}

// WithBudget bounds a job's speech recognition: a job still converting
// budget after it began is failed with domain.BudgetExceeded, whatever
// retries and redeliveries happened meanwhile. 0 means no bound.
func WithBudget(budget time.Duration) TranscribeOption {
	return func(uc *TranscribeAudio) { uc.budget = max(budget, 0) }
}

// recognizeWithinBudget is recognize under the job's budget.
func (uc *TranscribeAudio) recognizeWithinBudget(ctx context.Context, j domain.Job) (text string, segs []domain.Segment, note string, err error) {
	if uc.budget <= 0 {
		return uc.recognize(ctx, j)
	}
	left := j.UpdatedAt.Add(uc.budget).Sub(uc.clock.Now())
	if left <= 0 {
		return "", nil, "", domain.BudgetExceeded(uc.budget)
	}
	bctx, cancel := context.WithTimeout(ctx, left)
	defer cancel()
	text, segs, note, err = uc.recognize(bctx, j)
	if err != nil && ctx.Err() == nil && errors.Is(bctx.Err(), context.DeadlineExceeded) {
		uc.log.Warn("speech recognition went past the job's budget; the job fails", "docId", j.ID, "budget", uc.budget, "err", err)
		return "", nil, "", domain.BudgetExceeded(uc.budget)
	}
	return text, segs, note, err
}

// recognizeFiles is recognizeFilesWithin the engine's limits; when the
// engine refuses a piece as too large (413) the files are cut again into
// pieces of half that size and sent again, down to domain.MinPieceBytes,
// below which the job fails saying so.
func (uc *TranscribeAudio) recognizeFiles(ctx context.Context, j domain.Job, files []ports.AudioFile) ([]domain.Recognition, error) {
	limits := uc.limits
	for {
		recs, err := uc.recognizeFilesWithin(ctx, j, files, limits)
		var tl *domain.PieceTooLargeError
		if err == nil || !errors.As(err, &tl) {
			return recs, err
		}
		if uc.chunker == nil {
			return nil, err
		}
		size := tl.Bytes
		if size <= 0 || (limits.MaxBytes > 0 && limits.MaxBytes < size) {
			size = limits.MaxBytes
		}
		next := size / 2
		if size <= 0 || next < domain.MinPieceBytes {
			return nil, domain.PieceTooSmall(tl)
		}
		uc.log.Warn("the speech engine refused a piece as too large; cutting smaller pieces", "docId", j.ID,
			"refused_bytes", tl.Bytes, "max_bytes", next, "answer", tl.Msg)
		limits.MaxBytes = next
	}
}

// stereoPhrasePause breaks a stereo channel's words into phrases (see
// domain.Phrases) so that they interleave with the other channel's.
const stereoPhrasePause = 0.4

// channelSegments is one stereo channel's speech from its engine's answer:
// phrases of its words with the engine's text when it gave word times,
// its own speaker-turn segments when it diarizes, its utterances sent
// alone when it gave no word times (and utterances are on), else its
// segments.
func (uc *TranscribeAudio) channelSegments(ctx context.Context, j domain.Job, wav string, r domain.Recognition) ([]domain.Segment, error) {
	switch {
	case len(r.Words) > 0:
		return domain.Phrases(r.Text, r.Words, stereoPhrasePause), nil
	case labelled(r.Segments) && !r.NoTimestamps:
		// An engine that diarizes segments by speaker turn.
		return r.Segments, nil
	case uc.utter != nil && strings.TrimSpace(r.Text) != "":
		uc.utter.sawNoWords(uc.log, "stereo call")
		return uc.recognizeUtterances(ctx, j, wav, nil)
	case len(r.Segments) == 0 && strings.TrimSpace(r.Text) != "":
		return []domain.Segment{{Start: 0, End: r.Duration, Text: strings.TrimSpace(r.Text)}}, nil
	}
	return r.Segments, nil
}

// singleVoiceText is a single voice's transcript: the engine's own text
// (word boundaries and punctuation as it wrote them), else its segments'.
func singleVoiceText(rec domain.Recognition, segs []domain.Segment) string {
	if t := strings.Join(strings.Fields(rec.Text), " "); t != "" {
		return t
	}
	return domain.PlainText(segs)
}

// recognizeUtterances cuts the decoded channel at wav into utterances
// (domain.PlanUtterances over its speech and, for a mono call, the
// diarizer's turns), sends each alone and returns one segment per
// utterance the engine heard words in, with the utterance's time and
// speaker (none without turns).
func (uc *TranscribeAudio) recognizeUtterances(ctx context.Context, j domain.Job, wav string, turns []domain.Turn) ([]domain.Segment, error) {
	speech, err := uc.utter.speech.Speech(ctx, wav)
	if err != nil {
		return nil, fmt.Errorf("transcribe: finding pauses: %w", err)
	}
	plan := domain.PlanUtterances(speech, turns, domain.UtteranceMaxSeconds, 0)
	if len(plan) == 0 {
		return nil, nil
	}
	dir, err := os.MkdirTemp(filepath.Dir(wav), "utterances-")
	if err != nil {
		return nil, fmt.Errorf("transcribe: temp dir: %w", err)
	}
	defer os.RemoveAll(dir)
	spans := make([]domain.Span, len(plan))
	for i, p := range plan {
		spans[i] = domain.Span{Start: p.Start, End: p.End}
	}
	paths, err := uc.utter.cutter.Cut(ctx, wav, dir, spans)
	if err != nil {
		return nil, fmt.Errorf("transcribe: cutting utterances: %w", err)
	}
	files := make([]ports.AudioFile, len(paths))
	for i, p := range paths {
		files[i] = ports.AudioFile{Name: filepath.Base(p), Open: func() (io.ReadCloser, error) { return os.Open(p) }}
	}
	recs, err := uc.recognizeEach(ctx, files, uc.parallel)
	if err != nil {
		return nil, err
	}
	var out []domain.Segment
	for i, r := range recs {
		text := strings.Join(strings.Fields(r.Text), " ")
		if text == "" {
			continue
		}
		out = append(out, domain.Segment{Start: plan[i].Start, End: plan[i].End, Text: text, Speaker: plan[i].Speaker})
	}
	return out, nil
}

// recognizeEach sends every file as it is, parallel at once: one lost
// loses them all, so the first failure stops the others and is the
// answer (not the cancellation it caused).
func (uc *TranscribeAudio) recognizeEach(ctx context.Context, files []ports.AudioFile, parallel int) ([]domain.Recognition, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	recs := make([]domain.Recognition, len(files))
	errs := make([]error, len(files))
	sem := make(chan struct{}, max(parallel, 1))
	var wg sync.WaitGroup
	for i, f := range files {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				errs[i] = ctx.Err()
				return
			}
			defer func() { <-sem }()
			if recs[i], errs[i] = uc.recognizer.Recognize(ctx, f); errs[i] != nil {
				cancel()
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) {
			return nil, domain.SpeechFailed(err)
		}
	}
	for _, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("transcribe: %w", err)
		}
	}
	return recs, nil
}
