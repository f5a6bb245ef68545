package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// ProcessAudio is stage process: validate the upload as MP3, measure it and
// reserve its length from the account's balance (job stays processing).
type ProcessAudio struct {
	jobs        ports.JobStore
	blobs       ports.BlobStore
	probe       ports.AudioProbe
	clock       ports.Clock
	maxDuration time.Duration
	log         *slog.Logger

	// LowBalance, when set, is called once the measurement that took an
	// account's balance under domain.LowBalanceMs is committed (once per
	// crossing: a replayed measurement is refused before it), to tell the
	// owners. Its failure is logged, never the job's.
	LowBalance func(ctx context.Context, account domain.AccountID) error
}

// NewProcessAudio builds the stage; maxDuration ≤ 0 means domain.MaxDuration,
// a nil log slog.Default().
func NewProcessAudio(jobs ports.JobStore, blobs ports.BlobStore, probe ports.AudioProbe, clock ports.Clock, maxDuration time.Duration, log *slog.Logger) *ProcessAudio {
	need("jobs", jobs)
	need("blobs", blobs)
	need("probe", probe)
	need("clock", clock)
	if maxDuration <= 0 {
		maxDuration = domain.MaxDuration
	}
	if log == nil {
		log = slog.Default()
	}
	return &ProcessAudio{jobs: jobs, blobs: blobs, probe: probe, clock: clock, maxDuration: maxDuration, log: log}
}

// Handle processes one hyscribe.audio.uploaded.v1 event. Repeats are no-ops.
func (uc *ProcessAudio) Handle(ctx context.Context, ev domain.Event) error {
	j, err := uc.jobs.GetJob(ctx, ev.DocID)
	if err != nil {
		return ignoreMissing(err, "process")
	}
	if !j.AwaitsMeasurement() {
		return nil
	}
	info, err := uc.measure(ctx, j.BlobKey)
	if errors.Is(err, domain.ErrNotFound) {
		err = audioMissing(ctx, uc.log, uc.jobs, StageProcess, j, err)
	}
	if err != nil && !domain.IsPermanent(err) {
		return err
	}
	now := uc.clock.Now()
	crossed := false
	terr := transition(ctx, uc.jobs, now, j.ID, func(j *domain.Job, a *domain.Account) ([]domain.Event, error) {
		crossed = false
		if err != nil {
			return failUnlessMovedOn(j.AwaitsMeasurement(), err)
		}
		before := a.BalanceMs
		evs, merr := j.Measure(now, info, a, uc.maxDuration)
		crossed = merr == nil && domain.CrossedLowBalance(before, a.BalanceMs)
		return evs, merr
	})
	if terr == nil && crossed && uc.LowBalance != nil {
		if nerr := uc.LowBalance(ctx, j.AccountID); nerr != nil {
			uc.log.Warn("low-balance notice not sent", "account", j.AccountID, "err", nerr)
		}
	}
	return terr
}

func (uc *ProcessAudio) measure(ctx context.Context, key string) (domain.AudioInfo, error) {
	r, err := uc.blobs.Open(ctx, key)
	if err != nil {
		return domain.AudioInfo{}, fmt.Errorf("process: open audio: %w", err)
	}
	defer r.Close()
	return uc.probe.Probe(ctx, r)
}

// TranscribeAudio is stage transcribe: speech recognition (and, for stereo
// phone calls, one speaker per channel), processing → converting.
type TranscribeAudio struct {
	jobs       ports.JobStore
	blobs      ports.BlobStore
	splitter   ports.ChannelSplitter
	recognizer ports.SpeechRecognizer
	clock      ports.Clock
	tempDir    string
	diarizer   ports.Diarizer         // nil: mono calls need the engine's own speaker labels
	chunker    ports.AudioChunker     // nil: every recording goes to the engine whole
	inspector  ports.ChannelInspector // nil: every stereo call is one speaker per channel
	limits     ports.ChunkLimits
	parallel   int                    // pieces of one recording recognised at once
	pieces     ports.RecognizedPieces // nil: a recording recognised again is sent again whole
	log        *slog.Logger
	utter      *utterances   // nil: calls from engines without times keep one segment per answer
	budget     time.Duration // 0: no bound on a job's recognition
}

// TranscribeOption configures TranscribeAudio.
type TranscribeOption func(*TranscribeAudio)

// WithDiarizer tells the two speakers of mono phone calls apart with d
// unless the engine labels speakers itself.
func WithDiarizer(d ports.Diarizer) TranscribeOption {
	need("diarizer", d)
	return func(uc *TranscribeAudio) { uc.diarizer = d }
}

// WithChannelInspector looks at stereo phone calls' channels with c: a call
// written twice (dual mono) or beside a silent channel is diarized as mono
// (with the diarizer; without one it stays one speaker per channel).
func WithChannelInspector(c ports.ChannelInspector) TranscribeOption {
	need("channel inspector", c)
	return func(uc *TranscribeAudio) { uc.inspector = c }
}

// WithChunking cuts recordings longer than limits allow into pieces with c
// and recognises up to parallel of them at once (at least 1).
func WithChunking(c ports.AudioChunker, limits ports.ChunkLimits, parallel int) TranscribeOption {
	need("chunker", c)
	return func(uc *TranscribeAudio) { uc.chunker, uc.limits, uc.parallel = c, limits, max(parallel, 1) }
}

// WithRecognizedPieces keeps each piece's recognition in p as it comes
// back, so that a job recognised again (its worker killed mid-recognition,
// or one piece failed and the stage retries) re-sends only the pieces that
// had not come back.
func WithRecognizedPieces(p ports.RecognizedPieces) TranscribeOption {
	need("pieces", p)
	return func(uc *TranscribeAudio) { uc.pieces = p }
}

// NewTranscribeAudio builds the stage; tempDir holds decoded channels and
// pieces while they are recognised ("" means the OS default); a nil log is
// slog.Default().
func NewTranscribeAudio(jobs ports.JobStore, blobs ports.BlobStore, splitter ports.ChannelSplitter, recognizer ports.SpeechRecognizer, clock ports.Clock, tempDir string, log *slog.Logger, opts ...TranscribeOption) *TranscribeAudio {
	need("jobs", jobs)
	need("blobs", blobs)
	need("splitter", splitter)
	need("recognizer", recognizer)
	need("clock", clock)
	if log == nil {
		log = slog.Default()
	}
	uc := &TranscribeAudio{jobs: jobs, blobs: blobs, splitter: splitter, recognizer: recognizer, clock: clock, tempDir: tempDir, parallel: 1, log: log}
	for _, o := range opts {
		o(uc)
	}
	return uc
}

// Handle recognises the speech of one hyscribe.audio.processed.v1 event. A
// job already converting (its worker died) is recognised again; any other
// state means the event is a repeat.
func (uc *TranscribeAudio) Handle(ctx context.Context, ev domain.Event) error {
	// The job is read in the update that starts converting it (no read
	// before): a job already converting is left as it is and recognised.
	var j domain.Job
	err := uc.jobs.UpdateJob(ctx, ev.DocID, func(cur *domain.Job, _ *domain.Account) ([]domain.Event, error) {
		j = *cur
		switch {
		case !cur.AwaitsRecognition():
			return nil, errReplay
		case cur.Recognizing():
			return nil, errRecognizing
		}
		evs, err := cur.StartConverting(uc.clock.Now())
		j = *cur // converting since its UpdatedAt: the budget counts from there
		return evs, err
	})
	switch {
	case errors.Is(err, errReplay) || errors.Is(err, domain.ErrInvalidTransition):
		return nil
	case err != nil && !errors.Is(err, errRecognizing):
		return ignoreMissing(err, "transcribe")
	}
	text, segs, note, err := uc.recognizeWithinBudget(ctx, j)
	if errors.Is(err, domain.ErrNotFound) { // the blob store's: the job was there above
		err = audioMissing(ctx, uc.log, uc.jobs, StageTranscribe, j, err)
	}
	if err != nil && !domain.IsPermanent(err) {
		if _, gerr := uc.jobs.GetJob(ctx, j.ID); errors.Is(gerr, domain.ErrNotFound) {
			return nil // deleted while recognised, its audio with it: nothing to retry
		}
		return err
	}
	now := uc.clock.Now()
	terr := transition(ctx, uc.jobs, now, j.ID, func(j *domain.Job, _ *domain.Account) ([]domain.Event, error) {
		if err != nil {
			return failUnlessMovedOn(j.Recognizing(), err)
		}
		return j.RecognizeNoted(now, text, segs, note)
	})
	if terr == nil && uc.pieces != nil {
		// Recognised or failed: its pieces are of no more use. Left behind,
		// they go with the job when it is deleted.
		if derr := uc.pieces.DropPieces(ctx, j.ID); derr != nil {
			uc.log.Warn("transcribe: forget the job's recognized pieces", "docId", j.ID, "err", derr)
		}
	}
	return terr
}

// errRecognizing tells TranscribeAudio.Handle that the job is converting
// already (its worker died): nothing to write before recognising it again.
var errRecognizing = errors.New("job is converting already")

// recognize returns the transcript and its segments, and a note for the
// job's history on how the audio was taken ("" when there is nothing to
// say).
func (uc *TranscribeAudio) recognize(ctx context.Context, j domain.Job) (string, []domain.Segment, string, error) {
	if j.Type == domain.TypePhoneCall && j.Audio != nil && j.Audio.Channels == 2 {
		return uc.recognizeStereoCall(ctx, j)
	}
	var turns []domain.Turn
	var wav string // the decoded mono call, while it is diarized and recognised
	if j.Type == domain.TypePhoneCall && uc.diarizer != nil {
		var err error
		var done func()
		if wav, done, err = uc.decodeMono(ctx, j); err != nil {
			return "", nil, "", err
		}
		defer done()
		if turns, err = uc.diarizer.Diarize(ctx, wav); err != nil {
			return "", nil, "", fmt.Errorf("transcribe: %w", err)
		}
		if len(turns) == 0 {
			return "", nil, "", domain.Permanent(domain.ErrNoSpeech)
		}
		if uc.utter != nil && uc.utter.cutFirst() {
			// An engine without times: every utterance sent alone,
			// each with its speaker.
			segs, err := uc.recognizeUtterances(ctx, j, wav, turns)
			if err != nil {
				return "", nil, "", err
			}
			segs = domain.NumberSpeakers(segs)
			return domain.FormatPhoneCall(segs), segs, "", nil
		}
	}
	rec, err := uc.recognizeRecording(ctx, j)
	if err != nil {
		return "", nil, "", err
	}
	if j.Type == domain.TypeSingleVoice {
		segs := textSegments(rec)
		for i := range segs {
			segs[i].Speaker = ""
		}
		return singleVoiceText(rec, segs), segs, "", nil
	}
	text, segs, err := uc.labelMonoCall(ctx, j, wav, rec, turns)
	return text, segs, "", err
}

// textSegments are the recognition's segments, or one segment of its text
// when the engine gave none.
func textSegments(rec domain.Recognition) []domain.Segment {
	if len(rec.Segments) == 0 && strings.TrimSpace(rec.Text) != "" {
		return []domain.Segment{{Start: 0, End: rec.Duration, Text: strings.TrimSpace(rec.Text)}}
	}
	return rec.Segments
}

// labelMonoCall gives the segments of a mono call's recognition (decoded
// at wav) their speakers: the engine's own labels, else the diarizer's
// turns on the engine's text, else its utterances sent alone when the
// engine gave no word times.
func (uc *TranscribeAudio) labelMonoCall(ctx context.Context, j domain.Job, wav string, rec domain.Recognition, turns []domain.Turn) (string, []domain.Segment, error) {
	segs := textSegments(rec)
	var err error
	switch {
	case labelled(segs): // the engine told the speakers apart itself
	case uc.diarizer != nil && len(rec.Words) > 0:
		segs = domain.AssignSpeakersToText(rec.Text, rec.Words, turns)
	case uc.diarizer != nil && uc.utter != nil && strings.TrimSpace(rec.Text) != "":
		// Text without word times: cut into utterances after all.
		uc.utter.sawNoWords(uc.log, "mono call")
		if segs, err = uc.recognizeUtterances(ctx, j, wav, turns); err != nil {
			return "", nil, err
		}
	case uc.diarizer != nil:
		segs = domain.AssignSpeakers(segs, rec.Words, turns)
	default:
		return "", nil, domain.ErrMonoCall
	}
	segs = domain.NumberSpeakers(segs)
	return domain.FormatPhoneCall(segs), segs, nil
}

// decodeMono decodes a mono recording to a WAV file that done removes.
func (uc *TranscribeAudio) decodeMono(ctx context.Context, j domain.Job) (wav string, done func(), err error) {
	dir, err := os.MkdirTemp(uc.tempDir, "hyscribe-"+string(j.ID)+"-")
	if err != nil {
		return "", nil, fmt.Errorf("transcribe: temp dir: %w", err)
	}
	done = func() { os.RemoveAll(dir) }
	r, err := uc.blobs.Open(ctx, j.BlobKey)
	if err != nil {
		done()
		return "", nil, fmt.Errorf("transcribe: open audio: %w", err)
	}
	paths, err := uc.splitter.SplitChannels(ctx, r, dir)
	r.Close()
	if err != nil {
		done()
		return "", nil, err
	}
	if len(paths) != 1 {
		done()
		return "", nil, domain.WrongChannels("mono", len(paths))
	}
	return paths[0], done, nil
}

// recognizeRecording sends the recording to the engine (see recognizeFiles).
func (uc *TranscribeAudio) recognizeRecording(ctx context.Context, j domain.Job) (domain.Recognition, error) {
	open := func() (io.ReadCloser, error) { return uc.blobs.Open(ctx, j.BlobKey) }
	recs, err := uc.recognizeFiles(ctx, j, []ports.AudioFile{{Name: "audio.mp3", Open: open}})
	if err != nil {
		return domain.Recognition{}, err
	}
	return recs[0], nil
}

// recognizeFilesWithin sends a job's audio files (the recording, or a stereo
// call's two channels) to the engine within limits (recognizeFiles cuts
// smaller pieces when the engine refuses one as too large), each whole when it is short or
// within the engine's limits, else as pieces cut at silences (sized for the
// engine's slots, see domain.PlanPieces); the pieces are recognised
// concurrently, uc.parallel at once (never fewer than the files, which
// always went at once), longest first, and each file's are stitched back
// with absolute times. Every request says whose it is (account, job, audio
// length), so that the engine's scheduler shares it fairly. A file the
// chunker finds silent throughout is recognised as nothing without a
// request; that is domain.ErrNoSpeech only when every file is.
func (uc *TranscribeAudio) recognizeFilesWithin(ctx context.Context, j domain.Job, files []ports.AudioFile, limits ports.ChunkLimits) ([]domain.Recognition, error) {
	type piece struct {
		file  int
		audio ports.AudioFile
		chunk *ports.Chunk // nil: the file whole
	}
	// key names a piece within the job, the same for the same recording
	// cut the same way (ports.RecognizedPieces).
	key := func(p piece) string {
		if p.chunk == nil {
			return files[p.file].Name + "@whole"
		}
		return fmt.Sprintf("%s@%.3f-%.3f", files[p.file].Name, p.chunk.From, p.chunk.End)
	}
	var pieces []piece
	silent := 0
	seconds := 0.0
	if j.Audio != nil {
		seconds = j.Audio.Duration
	}
	for i, f := range files {
		f.Account, f.Job, f.Seconds = j.AccountID, j.ID, seconds
		if uc.chunker == nil {
			pieces = append(pieces, piece{file: i, audio: f})
			continue
		}
		// The chunker makes the directory only when it writes pieces: most
		// recordings fit the engine whole, and a directory made and removed
		// for each was 9 % of the worker's CPU (docs/performance.md).
		tmp := uc.tempDir
		if tmp == "" {
			tmp = os.TempDir()
		}
		dir := filepath.Join(tmp, "hyscribe-"+string(j.ID)+"-chunks-"+NewID())
		defer os.RemoveAll(dir)
		chunks, err := uc.chunker.Chunk(ctx, f.Open, dir, limits)
		if errors.Is(err, domain.ErrNoSpeech) {
			if silent++; silent == len(files) {
				return nil, err
			}
			continue
		}
		if err != nil {
			return nil, err
		}
		if len(chunks) == 1 && chunks[0].Path == "" {
			pieces = append(pieces, piece{file: i, audio: f})
			continue
		}
		base, ext := strings.TrimSuffix(f.Name, path.Ext(f.Name)), path.Ext(f.Name)
		for k, c := range chunks {
			open := func() (io.ReadCloser, error) { return os.Open(c.Path) }
			pieces = append(pieces, piece{file: i, chunk: &c, audio: ports.AudioFile{Name: fmt.Sprintf("%s-part-%03d%s", base, k+1, ext), Open: open,
				Account: j.AccountID, Job: j.ID, Seconds: c.End - c.From}})
		}
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	recs := make([]domain.Recognition, len(pieces))
	errs := make([]error, len(pieces))
	var kept map[string]domain.Recognition
	if uc.pieces != nil {
		var err error
		if kept, err = uc.pieces.RecognizedPieces(ctx, j.ID); err != nil {
			uc.log.Warn("transcribe: read the job's recognized pieces; sending them all", "docId", j.ID, "err", err)
		}
	}
	var todo []int
	var lengths []float64
	for i, p := range pieces {
		if rec, ok := kept[key(p)]; ok {
			recs[i] = rec // it came back before: not sent again
			continue
		}
		todo = append(todo, i)
		lengths = append(lengths, p.audio.Seconds)
	}
	// Longest first: the recording's last piece to come back is a short
	// one, so its slots stay busy to its end (domain.LongestFirst).
	next := make(chan int, len(todo))
	for _, k := range domain.LongestFirst(lengths) {
		next <- todo[k]
	}
	close(next)
	var wg sync.WaitGroup
	for range min(max(uc.parallel, len(files)), len(todo)) {
		wg.Go(func() {
			for i := range next {
				if err := ctx.Err(); err != nil {
					errs[i] = err
					continue
				}
				if recs[i], errs[i] = uc.recognizer.Recognize(ctx, pieces[i].audio); errs[i] != nil {
					cancel() // one piece lost loses the recording: stop the others
					continue
				}
				if uc.pieces != nil && len(pieces) > 1 {
					if err := uc.pieces.SavePiece(ctx, j.ID, key(pieces[i]), recs[i], uc.clock.Now()); err != nil {
						uc.log.Warn("transcribe: keep a recognized piece", "docId", j.ID, "err", err)
					}
				}
			}
		})
	}
	wg.Wait()
	// The first error that is not the cancellation it caused.
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
	out := make([]domain.Recognition, len(files))
	parts := make([][]domain.ChunkResult, len(files))
	for i, p := range pieces {
		if p.chunk == nil {
			out[p.file] = recs[i]
			continue
		}
		c := p.chunk
		parts[p.file] = append(parts[p.file], domain.ChunkResult{Offset: c.Start, From: c.From, End: c.End, Rec: recs[i]})
	}
	for f, rs := range parts {
		if len(rs) > 0 {
			out[f] = domain.Stitch(rs)
		}
	}
	return out, nil
}

// labelled reports whether the engine itself told speakers apart.
func labelled(segs []domain.Segment) bool {
	seen := map[string]bool{}
	for _, s := range segs {
		if s.Speaker == "" {
			return false
		}
		seen[s.Speaker] = true
	}
	return len(seen) >= 1 && len(segs) > 0
}

func (uc *TranscribeAudio) recognizeStereoCall(ctx context.Context, j domain.Job) (string, []domain.Segment, string, error) {
	dir, err := os.MkdirTemp(uc.tempDir, "hyscribe-"+string(j.ID)+"-")
	if err != nil {
		return "", nil, "", fmt.Errorf("transcribe: temp dir: %w", err)
	}
	defer os.RemoveAll(dir)
	r, err := uc.blobs.Open(ctx, j.BlobKey)
	if err != nil {
		return "", nil, "", fmt.Errorf("transcribe: open audio: %w", err)
	}
	paths, err := uc.splitter.SplitChannels(ctx, r, dir)
	r.Close()
	if err != nil {
		return "", nil, "", err
	}
	if len(paths) != 2 {
		return "", nil, "", domain.WrongChannels("stereo", len(paths))
	}
	if uc.inspector != nil && uc.diarizer != nil {
		layout, err := uc.inspector.InspectChannels(ctx, paths[0], paths[1])
		if err != nil {
			return "", nil, "", fmt.Errorf("transcribe: %w", err)
		}
		if layout.Mono() {
			text, segs, err := uc.recognizeOneChannel(ctx, j, paths[layout.Channel])
			return text, segs, layout.Note(), err
		}
	}
	var chans [2][]domain.Segment
	if uc.utter != nil && uc.utter.cutFirst() {
		// An engine without times: each channel's utterances sent alone.
		for i, p := range paths {
			if chans[i], err = uc.recognizeUtterances(ctx, j, p, nil); err != nil {
				return "", nil, "", err
			}
		}
	} else {
		var files []ports.AudioFile
		for i, p := range paths {
			files = append(files, ports.AudioFile{Name: fmt.Sprintf("channel-%d.wav", i+1), Open: func() (io.ReadCloser, error) { return os.Open(p) }})
		}
		recs, err := uc.recognizeFiles(ctx, j, files)
		if err != nil {
			return "", nil, "", err
		}
		for i, r := range recs {
			if chans[i], err = uc.channelSegments(ctx, j, paths[i], r); err != nil {
				return "", nil, "", err
			}
		}
	}
	segs := domain.NumberSpeakers(domain.MergeChannels(chans[0], chans[1], "L", "R"))
	return domain.FormatPhoneCall(segs), segs, "", nil
}

// recognizeOneChannel takes a stereo call whose channel at path carries
// both speakers as a mono call: diarized, recognised once (or utterance
// by utterance for an engine without times), labelled.
func (uc *TranscribeAudio) recognizeOneChannel(ctx context.Context, j domain.Job, path string) (string, []domain.Segment, error) {
	turns, err := uc.diarizer.Diarize(ctx, path)
	if err != nil {
		return "", nil, fmt.Errorf("transcribe: %w", err)
	}
	if len(turns) == 0 {
		return "", nil, domain.Permanent(domain.ErrNoSpeech)
	}
	if uc.utter != nil && uc.utter.cutFirst() {
		segs, err := uc.recognizeUtterances(ctx, j, path, turns)
		if err != nil {
			return "", nil, err
		}
		segs = domain.NumberSpeakers(segs)
		return domain.FormatPhoneCall(segs), segs, nil
	}
	open := func() (io.ReadCloser, error) { return os.Open(path) }
	recs, err := uc.recognizeFiles(ctx, j, []ports.AudioFile{{Name: "call.wav", Open: open}})
	if err != nil {
		return "", nil, err
	}
	return uc.labelMonoCall(ctx, j, path, recs[0], turns)
}

// EnrichTranscript is stage enrich: title, summary and language; converting → transcribed.
type EnrichTranscript struct {
	jobs       ports.JobStore
	summarizer ports.Summarizer
	fallback   ports.Summarizer // used when summarizer fails (e.g. an outside model is down)
	clock      ports.Clock
	log        *slog.Logger
}

// NewEnrichTranscript builds the stage. fallback may be nil.
func NewEnrichTranscript(jobs ports.JobStore, summarizer, fallback ports.Summarizer, clock ports.Clock, log *slog.Logger) *EnrichTranscript {
	need("jobs", jobs)
	need("summarizer", summarizer)
	need("clock", clock)
	if log == nil {
		log = slog.Default()
	}
	return &EnrichTranscript{jobs: jobs, summarizer: summarizer, fallback: fallback, clock: clock, log: log}
}

// Handle enriches one hyscribe.transcript.recognised.v1 event. Repeats are no-ops.
func (uc *EnrichTranscript) Handle(ctx context.Context, ev domain.Event) error {
	j, err := uc.jobs.GetJob(ctx, ev.DocID)
	if err != nil {
		return ignoreMissing(err, "enrich")
	}
	if !j.AwaitsEnrichment() {
		return nil
	}
	title, resolution, err := uc.summarizer.Summarize(ctx, j.Transcription)
	if err != nil && uc.fallback != nil {
		uc.log.Warn("summarizer failed; using the built-in one", "docId", j.ID, "err", err)
		title, resolution, err = uc.fallback.Summarize(ctx, j.Transcription)
	}
	if err != nil {
		return fmt.Errorf("enrich: summarize: %w", err)
	}
	now := uc.clock.Now()
	return transition(ctx, uc.jobs, now, j.ID, func(j *domain.Job, _ *domain.Account) ([]domain.Event, error) {
		return j.Complete(now, title, resolution, domain.LanguageArmenian)
	})
}

// FailJob ends a job with a readable reason when a stage gives up on it.
type FailJob struct {
	jobs  ports.JobStore
	clock ports.Clock
}

// NewFailJob builds the use case.
func NewFailJob(jobs ports.JobStore, clock ports.Clock) *FailJob {
	need("jobs", jobs)
	need("clock", clock)
	return &FailJob{jobs: jobs, clock: clock}
}

// Handle fails the job; a job already terminal is left as it is.
func (uc *FailJob) Handle(ctx context.Context, id domain.DocID, reason string) error {
	now := uc.clock.Now()
	err := transition(ctx, uc.jobs, now, id, func(j *domain.Job, a *domain.Account) ([]domain.Event, error) {
		return j.Fail(now, reason, a)
	})
	return ignoreMissing(err, "fail job")
}

// GiveUpReason turns a stage's last error into the job's error message:
// failures meant for people (bad audio, the speech engine) are told in
// their own sentence; anything else, the store's errors above all, is
// internal and is described without its details, which stay in the log
// (domain.CustomerReason).
func GiveUpReason(stage string, err error) string {
	return domain.CustomerReason(stage, err)
}

// audioMissing is the failure of a job whose upload the blob store does not
// have (err wraps domain.ErrNotFound). The customer reads
// domain.ErrAudioMissing, which names no server path; the worker's log gets
// the store's own words, which say where it looked (and, for local disk,
// what to configure: a volume every process shares, or S3). A job deleted
// meanwhile took its audio with it: that is no failure worth a log line.
func audioMissing(ctx context.Context, log *slog.Logger, jobs ports.JobStore, stage string, j domain.Job, err error) error {
	if _, gerr := jobs.GetJob(ctx, j.ID); errors.Is(gerr, domain.ErrNotFound) {
		return domain.ErrAudioMissing // the transition finds no job and does nothing
	}
	log.LogAttrs(ctx, slog.LevelError, "the job's uploaded audio is missing from storage; the job fails",
		slog.String("stage", stage), slog.String("docId", string(j.ID)), slog.String("blobKey", j.BlobKey),
		slog.String("err", err.Error()))
	return domain.ErrAudioMissing
}

// failUnlessMovedOn is a stage's permanent failure inside the job's update:
// err fails the job while it still awaits the stage's work (still); a job
// another worker moved on meanwhile makes the failure a replay, ignored.
func failUnlessMovedOn(still bool, err error) ([]domain.Event, error) {
	if !still {
		return nil, domain.ErrInvalidTransition
	}
	return nil, err
}

func ignoreMissing(err error, op string) error {
	if err == nil || errors.Is(err, domain.ErrNotFound) {
		return nil // a job that no longer exists has nothing left to do
	}
	return fmt.Errorf("%s: %w", op, err)
}
