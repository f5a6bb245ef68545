package domain

import (
	"errors"
	"reflect"
	"testing"
)

// A stereo call: the customer (right channel) speaks first, so is
// "Խոսնակ 1"; the agent (left) is "Խոսնակ 2".
func stereoCall() Job {
	segs := NumberSpeakers(MergeChannels(
		[]Segment{{Start: 1, End: 2, Text: "Բարև ձեզ, ես Անին եմ"}, {Start: 5, End: 6, Text: "Բարի օր"}},
		[]Segment{{Start: 0, End: 0.9, Text: "Ալո"}, {Start: 3, End: 4, Text: "Շնորհակալություն, ցտեսություն"}},
		"L", "R"))
	return Job{Type: TypePhoneCall, Segments: segs}
}

func TestSpeakerRolesFromTheAgentChannel(t *testing.T) {
	j := stereoCall()
	if got := j.SpeakerRoles(""); len(got) != 0 {
		t.Fatalf("without an agent channel: %v, want no roles", got)
	}
	got := j.SpeakerRoles(ChannelLeft)
	want := map[string]SpeakerName{"1": {Role: SpeakerCustomer}, "2": {Role: SpeakerAgent}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("agent on the left: %v, want %v", got, want)
	}
	if got := j.SpeakerRoles(ChannelRight); got["1"].Role != SpeakerAgent || got["2"].Role != SpeakerCustomer {
		t.Fatalf("agent on the right: %v", got)
	}
	// What a person says on the recording's page wins over the channel.
	if _, err := j.NameSpeakers(map[string]SpeakerName{"1": {Role: SpeakerAgent, Name: "  Անի  "}}); err != nil {
		t.Fatal(err)
	}
	got = j.SpeakerRoles(ChannelLeft)
	if got["1"] != (SpeakerName{Role: SpeakerAgent, Name: "Անի"}) || got["2"].Role != "" {
		t.Fatalf("named agent 1 on a left-agent account: %v, want 1 the agent, 2 unknown (the channel's guess would make two agents)", got)
	}
	// A mono call has no channels: only names.
	mono := Job{Type: TypePhoneCall, Segments: []Segment{{Speaker: "1", Text: "ա"}, {Speaker: "2", Text: "բ"}}}
	if got := mono.SpeakerRoles(ChannelLeft); len(got) != 0 {
		t.Fatalf("mono call: %v, want no roles", got)
	}
}

func TestNameSpeakersRefusesWhatCannotBe(t *testing.T) {
	for _, tc := range []struct {
		name  string
		job   Job
		names map[string]SpeakerName
		code  string
	}{
		{"not a call", Job{Type: TypeSingleVoice}, map[string]SpeakerName{"1": {Role: SpeakerAgent}}, "not_a_call"},
		{"speaker 3", stereoCall(), map[string]SpeakerName{"3": {Name: "x"}}, "invalid_speaker"},
		{"unknown role", stereoCall(), map[string]SpeakerName{"1": {Role: "boss"}}, "invalid_speaker_role"},
		{"two agents", stereoCall(), map[string]SpeakerName{"1": {Role: SpeakerAgent}, "2": {Role: SpeakerAgent}}, "role_taken"},
		{"long name", stereoCall(), map[string]SpeakerName{"1": {Name: string(make([]rune, MaxSpeakerName+1))}}, "speaker_name_too_long"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := tc.job
			_, err := j.NameSpeakers(tc.names)
			var ve *ValidationError
			if !errors.As(err, &ve) || ve.Code != tc.code {
				t.Fatalf("err %v, want code %s", err, tc.code)
			}
		})
	}
	j := stereoCall()
	if changed, _ := j.NameSpeakers(map[string]SpeakerName{"2": {Name: "Անի"}}); changed {
		t.Error("a name alone reported a role change")
	}
	if changed, _ := j.NameSpeakers(map[string]SpeakerName{"2": {Role: SpeakerAgent, Name: "Անի"}}); !changed {
		t.Error("giving a role reported no change")
	}
	if changed, _ := j.NameSpeakers(nil); !changed || j.Speakers != nil {
		t.Errorf("clearing: changed %v, speakers %v", changed, j.Speakers)
	}
}

func TestGroupByRoleGivesEachQuestionOnlyItsSpeakersWords(t *testing.T) {
	j := stereoCall()
	qs := []Question{
		{ID: "bye", Text: "Did the agent say goodbye?", Role: SpeakerAgent},
		{ID: "any", Text: "Was an address asked?"},
		{ID: "thanks", Text: "Did the customer thank?", Role: SpeakerCustomer},
	}
	groups := GroupByRole(j, j.SpeakerRoles(ChannelLeft), qs)
	if len(groups) != 3 || groups[0].Role != "" || groups[1].Role != SpeakerAgent || groups[2].Role != SpeakerCustomer {
		t.Fatalf("groups %+v", groups)
	}
	if len(groups[0].Segments) != 4 || groups[0].Questions[0].ID != "any" {
		t.Errorf("whole call group: %+v", groups[0])
	}
	agent := groups[1]
	if agent.Speaker != "2" || agent.Unknown || len(agent.Segments) != 2 || agent.Questions[0].ID != "bye" {
		t.Fatalf("agent group: %+v", agent)
	}
	for _, s := range agent.Segments {
		if s.Channel != ChannelLeft {
			t.Errorf("the agent's words include %q from the %s channel", s.Text, s.Channel)
		}
	}
	if got := SpeakerText(agent.Segments); got != "Խոսնակ 2: Բարև ձեզ, ես Անին եմ\nԽոսնակ 2: Բարի օր" {
		t.Errorf("the agent's transcript: %q", got)
	}
	// Without roles the limited questions cannot be answered.
	groups = GroupByRole(j, nil, qs)
	if !groups[1].Unknown || len(groups[1].Segments) != 0 || !groups[2].Unknown {
		t.Errorf("without roles: %+v", groups)
	}
	// A single-voice recording has no roles: every question reads it all.
	one := Job{Type: TypeSingleVoice, Segments: []Segment{{Text: "ա"}}}
	if groups := GroupByRole(one, nil, qs); len(groups) != 1 || groups[0].Unknown || len(groups[0].Questions) != 3 {
		t.Errorf("single voice: %+v", groups)
	}
}

func TestChecklistQuestionRole(t *testing.T) {
	if _, err := ParseChecklistFile([]byte(`{"name":"n","questions":[{"id":"a","text":"t","role":"agent"},{"id":"b","text":"t","role":"customer"},{"id":"c","text":"t"}]}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := ParseChecklistFile([]byte(`{"name":"n","questions":[{"id":"a","text":"t","role":"operator"}]}`)); !errors.Is(err, ErrValidation) {
		t.Fatalf("role operator: %v, want a validation error", err)
	}
}
