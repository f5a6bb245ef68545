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
	return transition(ctx, uc.jobs, now, j.ID, func(j *domain.Job, a *domain.Account) ([]domain.Event, error) {
		if err != nil {
			return failUnlessMovedOn(j.AwaitsMeasurement(), err)
		}
		return j.Measure(now, info, a, uc.maxDuration)
	})
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
	diarizer   ports.Diarizer     // nil: mono calls need the engine's own speaker labels
	chunker    ports.AudioChunker // nil: every recording goes to the engine whole
	limits     ports.ChunkLimits
	parallel   int // pieces of one recording recognised at once
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

// WithChunking cuts recordings longer than limits allow into pieces with c
// and recognises up to parallel of them at once (at least 1).
func WithChunking(c ports.AudioChunker, limits ports.ChunkLimits, parallel int) TranscribeOption {
	need("chunker", c)
	return func(uc *TranscribeAudio) { uc.chunker, uc.limits, uc.parallel = c, limits, max(parallel, 1) }
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
	text, segs, err := uc.recognizeWithinBudget(ctx, j)
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
	return transition(ctx, uc.jobs, now, j.ID, func(j *domain.Job, _ *domain.Account) ([]domain.Event, error) {
		if err != nil {
			return failUnlessMovedOn(j.Recognizing(), err)
		}
		return j.Recognize(now, text, segs)
	})
}

// errRecognizing tells TranscribeAudio.Handle that the job is converting
// already (its worker died): nothing to write before recognising it again.
var errRecognizing = errors.New("job is converting already")

func (uc *TranscribeAudio) recognize(ctx context.Context, j domain.Job) (string, []domain.Segment, error) {
	if j.Type == domain.TypePhoneCall && j.Audio != nil && j.Audio.Channels == 2 {
		return uc.recognizeStereoCall(ctx, j)
	}
	var turns []domain.Turn
	var wav string // the decoded mono call, while it is diarized and recognised
	if j.Type == domain.TypePhoneCall && uc.diarizer != nil {
		var err error
		var done func()
		if wav, done, err = uc.decodeMono(ctx, j); err != nil {
			return "", nil, err
		}
		defer done()
		if turns, err = uc.diarizer.Diarize(ctx, wav); err != nil {
			return "", nil, fmt.Errorf("transcribe: %w", err)
		}
		if len(turns) == 0 {
			return "", nil, domain.Permanent(domain.ErrNoSpeech)
		}
		if uc.utter != nil && uc.utter.cutFirst() {
			// An engine without times: every utterance sent alone,
			// each with its speaker.
			segs, err := uc.recognizeUtterances(ctx, j, wav, turns)
			if err != nil {
				return "", nil, err
			}
			segs = domain.NumberSpeakers(segs)
			return domain.FormatPhoneCall(segs), segs, nil
		}
	}
	rec, err := uc.recognizeRecording(ctx, j)
	if err != nil {
		return "", nil, err
	}
	segs := rec.Segments
	if len(segs) == 0 && strings.TrimSpace(rec.Text) != "" {
		segs = []domain.Segment{{Start: 0, End: rec.Duration, Text: strings.TrimSpace(rec.Text)}}
	}
	if j.Type == domain.TypeSingleVoice {
		for i := range segs {
			segs[i].Speaker = ""
		}
		return singleVoiceText(rec, segs), segs, nil
	}
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

// recognizeFiles sends a job's audio files (the recording, or a stereo
// call's two channels) to the engine, each whole when it is within the
// engine's limits, else as pieces cut at silences; all the pieces are
// recognised concurrently (uc.parallel at once, and never fewer than the
// files, which always went at once) and each file's are stitched back with
// absolute times. A file the chunker finds silent throughout is recognised
// as nothing without a request; that is domain.ErrNoSpeech only when every
// file is.
func (uc *TranscribeAudio) recognizeFilesWithin(ctx context.Context, j domain.Job, files []ports.AudioFile, limits ports.ChunkLimits) ([]domain.Recognition, error) {
	type piece struct {
		file  int
		audio ports.AudioFile
		chunk *ports.Chunk // nil: the file whole
	}
	var pieces []piece
	silent := 0
	for i, f := range files {
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
			pieces = append(pieces, piece{file: i, chunk: &c, audio: ports.AudioFile{Name: fmt.Sprintf("%s-part-%03d%s", base, k+1, ext), Open: open}})
		}
	}

	audios := make([]ports.AudioFile, len(pieces))
	for i, p := range pieces {
		audios[i] = p.audio
	}
	recs, err := uc.recognizeEach(ctx, audios, max(uc.parallel, len(files)))
	if err != nil {
		return nil, err
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

func (uc *TranscribeAudio) recognizeStereoCall(ctx context.Context, j domain.Job) (string, []domain.Segment, error) {
	dir, err := os.MkdirTemp(uc.tempDir, "hyscribe-"+string(j.ID)+"-")
	if err != nil {
		return "", nil, fmt.Errorf("transcribe: temp dir: %w", err)
	}
	defer os.RemoveAll(dir)
	r, err := uc.blobs.Open(ctx, j.BlobKey)
	if err != nil {
		return "", nil, fmt.Errorf("transcribe: open audio: %w", err)
	}
	paths, err := uc.splitter.SplitChannels(ctx, r, dir)
	r.Close()
	if err != nil {
		return "", nil, err
	}
	if len(paths) != 2 {
		return "", nil, domain.WrongChannels("stereo", len(paths))
	}
	var chans [2][]domain.Segment
	if uc.utter != nil && uc.utter.cutFirst() {
		// An engine without times: each channel's utterances sent alone.
		for i, p := range paths {
			if chans[i], err = uc.recognizeUtterances(ctx, j, p, nil); err != nil {
				return "", nil, err
			}
		}
	} else {
		var files []ports.AudioFile
		for i, p := range paths {
			files = append(files, ports.AudioFile{Name: fmt.Sprintf("channel-%d.wav", i+1), Open: func() (io.ReadCloser, error) { return os.Open(p) }})
		}
		recs, err := uc.recognizeFiles(ctx, j, files)
		if err != nil {
			return "", nil, err
		}
		for i, r := range recs {
			if chans[i], err = uc.channelSegments(ctx, j, paths[i], r); err != nil {
				return "", nil, err
			}
		}
	}
	segs := domain.NumberSpeakers(domain.MergeChannels(chans[0], chans[1], "L", "R"))
	return domain.FormatPhoneCall(segs), segs, nil
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
// failures meant for people (bad audio, the speech engine) are told as they
// are; anything else is internal and is described without its details, which
// stay in the log.
func GiveUpReason(stage string, err error) string {
	if domain.IsPermanent(err) || errors.Is(err, domain.ErrUnavailable) {
		return err.Error()
	}
	return domain.InternalFailure(stage)
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
