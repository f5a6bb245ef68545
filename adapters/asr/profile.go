package asr

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// Engine profiles: what one kind of engine is sent and how its answer is
// read. Each is taken from the engine's own source (the files are cited in
// testdata/README.md, beside the recorded answers the tests read).
const (
	// ProfileAuto picks a profile from the URL: api.openai.com is OpenAI,
	// *.openai.azure.com (or any URL with an api-version query) Azure,
	// api.groq.com Groq, a base ending in /inference whisper.cpp; any other
	// engine is treated as OpenAI-compatible.
	ProfileAuto = "auto"
	// ProfileOpenAI is api.openai.com: whisper-1 answers verbose_json with
	// segment and word times; the gpt-4o transcribe models (and
	// gpt-transcribe) answer json only (text, no times);
	// gpt-4o-transcribe-diarize answers diarized_json (speaker-labelled
	// segments) and needs chunking_strategy=auto.
	ProfileOpenAI = "openai"
	// ProfileAzure is Azure OpenAI: the URL is the deployment's base,
	// https://RESOURCE.openai.azure.com/openai/deployments/DEPLOYMENT?api-version=…,
	// and the key goes in the api-key header. The model (the deployed one)
	// decides the format as for OpenAI.
	ProfileAzure = "azure"
	// ProfileWhisperCpp is whisper.cpp's examples/server: POST
	// {URL}/inference, no model field; asked for verbose_json with
	// split_on_word so that its 60-character segment wrapping falls
	// between words. Its "words" are tokens, merged back into words.
	ProfileWhisperCpp = "whispercpp"
	// ProfileSpeaches is speaches (faster-whisper): verbose_json, words
	// only when asked for (null otherwise).
	ProfileSpeaches = "speaches"
	// ProfileVLLM is vLLM's OpenAI-compatible server: the model is the
	// served model name; verbose_json has a string duration and segments
	// but never words.
	ProfileVLLM = "vllm"
	// ProfileGroq is api.groq.com/openai/v1: OpenAI's verbose_json with an
	// x_groq extra.
	ProfileGroq = "groq"
)

// Profiles lists the profiles HYSCRIBE_ASR_PROFILE accepts.
var Profiles = []string{ProfileAuto, ProfileOpenAI, ProfileAzure, ProfileWhisperCpp, ProfileSpeaches, ProfileVLLM, ProfileGroq}

// profile is what the client does for one kind of engine.
type profile struct {
	name       string
	path       string // the operation's path after the base URL
	keyHeader  string // "" sends "Authorization: Bearer KEY"
	model      string // default model; "" sends none when unset
	needsModel bool   // the engine refuses a request without its own model name
	noModel    bool   // the engine takes no model field
	extra      [][2]string
	tokens     bool // segment "words" are tokens: merge pieces into words
	joinRaw    bool // the text is the segments' texts run together
}

var profiles = map[string]profile{
	ProfileOpenAI:     {name: ProfileOpenAI, path: "/audio/transcriptions", model: DefaultModel},
	ProfileAzure:      {name: ProfileAzure, path: "/audio/transcriptions", keyHeader: "api-key", model: "whisper"},
	ProfileWhisperCpp: {name: ProfileWhisperCpp, path: "/inference", noModel: true, extra: [][2]string{{"split_on_word", "true"}}, tokens: true, joinRaw: true},
	ProfileSpeaches:   {name: ProfileSpeaches, path: "/audio/transcriptions", model: "Systran/faster-whisper-large-v3"},
	ProfileVLLM:       {name: ProfileVLLM, path: "/audio/transcriptions", needsModel: true},
	ProfileGroq:       {name: ProfileGroq, path: "/audio/transcriptions", model: "whisper-large-v3-turbo"},
}

// resolveProfile picks the profile named (or detected from base when name
// is "" or "auto").
func resolveProfile(name, base string) (profile, error) {
	name = strings.ToLower(strings.TrimSpace(name))
	if name == "" || name == ProfileAuto {
		return profiles[detect(base)], nil
	}
	p, ok := profiles[name]
	if !ok {
		return profile{}, fmt.Errorf("asr: unknown profile %q (one of %s)", name, strings.Join(Profiles, ", "))
	}
	return p, nil
}

func detect(base string) string {
	u, err := url.Parse(strings.TrimSpace(base))
	if err != nil {
		return ProfileOpenAI
	}
	host := strings.ToLower(u.Hostname())
	switch {
	case host == "api.openai.com":
		return ProfileOpenAI
	case strings.HasSuffix(host, ".openai.azure.com"), strings.HasSuffix(host, ".cognitiveservices.azure.com"), u.Query().Has("api-version"):
		return ProfileAzure
	case host == "api.groq.com":
		return ProfileGroq
	case strings.HasSuffix(strings.TrimRight(u.Path, "/"), "/inference"):
		return ProfileWhisperCpp
	}
	return ProfileOpenAI
}

// format is what one request asks for.
type format struct {
	responseFormat string
	grains         []string // timestamp_granularities[]
	extra          [][2]string
}

// textOnlyModel reports an OpenAI model that answers json only: the gpt-4o
// transcribe models and gpt-transcribe (openai-python's
// transcription_create_params.py: "For gpt-4o-transcribe and
// gpt-4o-mini-transcribe, the only supported format is json").
func textOnlyModel(model string) bool {
	m := strings.ToLower(model)
	return strings.Contains(m, "transcribe") && !diarizeModel(m)
}

func diarizeModel(model string) bool {
	return strings.Contains(strings.ToLower(model), "transcribe-diarize")
}

// formatFor is the request format for model; plain is true after the
// engine refused timestamps once.
func (p profile) formatFor(model string, plain bool) format {
	switch {
	case diarizeModel(model):
		return format{responseFormat: "diarized_json", extra: [][2]string{{"chunking_strategy", "auto"}}}
	case plain || textOnlyModel(model):
		return format{responseFormat: "json"}
	}
	return format{responseFormat: "verbose_json", grains: []string{"segment", "word"}, extra: p.extra}
}

// timed reports whether the profile and model give times at all.
func (p profile) timed(model string) bool { return !textOnlyModel(model) }

// wantsTimestamps reports whether f asks for timestamps the engine may refuse.
func (f format) wantsTimestamps() bool {
	return f.responseFormat == "verbose_json" || slices.Contains(f.grains, "word")
}
