package domain

import (
	"regexp"
	"strings"
)

// Failure is a reason in a form pages can translate: a stable code and
// the details the sentence names, in order. The API keeps the English
// sentence in its `error`; a page shows the sentence of the code in its
// own language (docs/webapp.md, "One language per page").
type Failure struct {
	Code string
	Args []string
}

// failureKind recognises one reason by the wording that failures.go (job
// failures and refused uploads), the analyse stage and the webhook sender
// give it; the expression's groups are the Args. Tests build every reason
// with its own constructor and check it is recognised, so a new wording
// cannot slip past unnoticed.
type failureKind struct {
	code string
	re   *regexp.Regexp
}

func kinds(pairs ...string) []failureKind {
	out := make([]failureKind, 0, len(pairs)/2)
	for i := 0; i < len(pairs); i += 2 {
		out = append(out, failureKind{code: pairs[i], re: regexp.MustCompile(pairs[i+1])})
	}
	return out
}

// Job failures and refused uploads (Job.Error).
var jobFailureKinds = kinds(
	"upload_expired", `^upload window expired`,
	"upload_empty", `^the upload is empty`,
	"upload_too_large", `^the upload is larger than the (.+?) limit`,
	"file_empty", `^the file is empty$`,
	"no_mp3_frames", `^the file is not MP3 audio`,
	"mp3_format_change", `^the MP3 file changes format after ([0-9.]+) s, from (.+?) to (.+?):`,
	"silent_audio", `^the audio is empty`,
	"audio_missing", `^the uploaded audio is missing`,
	"not_mp3", `^the file is (.+?), not MP3`,
	"corrupt_mp3", `^the MP3 file is truncated or corrupt`,
	"undecodable_mp3", `^the MP3 file cannot be decoded`,
	"too_long", `^recording is (.+?), longer than the maximum of (.+)$`,
	"over_balance", `^recording is (.+?), (.+?) remain in the account$`,
	"no_speech", `^no speech detected`,
	"mono_call", `^phone_call transcription of a mono recording`,
	"wrong_channels", `^expected an? (mono|stereo) recording, found (\d+)`,
	"speech_failed", `^speech recognition failed`,
	"stalled", `^processing stopped in the (\w+) state`,
	"internal", `^internal error in the (\w+) stage`,
)

// Failed analyses (Analysis.Error).
var analysisFailureKinds = kinds(
	"checklist_gone", `^checklist ".*" version \d+ no longer exists`,
	"analysis_failed", `^checklist analysis failed`,
)

// Failed webhook deliveries (Delivery.Error): the sender's wording.
var deliveryFailureKinds = kinds(
	"receiver_status", `^receiver answered (\d{3})`,
	"receiver_redirect", `^receiver redirected`,
	"receiver_timeout", `^receiver timeout`,
	"receiver_unreachable", `^receiver connection failed`,
	"receiver_circuit_open", `^receiver circuit open`,
	"receiver_busy", `^receiver busy`,
	"receiver_private", `^receiver address \S+ is private`,
	"receiver_url", `^receiver URL`,
	"delivery_cancelled", `^delivery cancelled`,
)

func classify(reason string, table []failureKind, other string) Failure {
	reason = strings.TrimSpace(reason)
	for _, k := range table {
		if m := k.re.FindStringSubmatch(reason); m != nil {
			return Failure{Code: k.code, Args: m[1:]}
		}
	}
	return Failure{Code: other}
}

// JobFailure is the code of a job's failure or refused upload (Job.Error);
// "other" for a reason no table knows. A file of another type is named
// by its format alone ("WAV", "M4A/MP4"), without the English around it.
func JobFailure(reason string) Failure {
	f := classify(reason, jobFailureKinds, "other")
	if f.Code == "not_mp3" && len(f.Args) == 1 {
		f.Args[0] = formatName(f.Args[0])
	}
	return f
}

// AnalysisFailure is the code of a failed analysis's reason.
func AnalysisFailure(reason string) Failure {
	return classify(reason, analysisFailureKinds, "analysis_other")
}

// DeliveryFailure is the code of a failed delivery's error.
func DeliveryFailure(reason string) Failure {
	return classify(reason, deliveryFailureKinds, "delivery_other")
}

// formatName keeps the name of a file format from NotMP3's description:
// "WAV audio" → "WAV", "a ZIP archive" → "ZIP".
func formatName(desc string) string {
	d := strings.TrimSpace(desc)
	for _, p := range []string{"a ", "an "} {
		d = strings.TrimPrefix(d, p)
	}
	for _, s := range []string{" audio", " video", " media", " file", " document", " archive", " page"} {
		if i := strings.Index(d, s); i > 0 {
			d = d[:i] + d[i+len(s):]
			break
		}
	}
	return strings.TrimSpace(d)
}

// FailureCodes lists every code JobFailure, AnalysisFailure and
// DeliveryFailure can give, for pages that must have a sentence for each.
func FailureCodes() []string {
	codes := []string{"other", "analysis_other", "delivery_other"}
	for _, table := range [][]failureKind{jobFailureKinds, analysisFailureKinds, deliveryFailureKinds} {
		for _, k := range table {
			codes = append(codes, k.code)
		}
	}
	return codes
}
