package domain

import (
	"sort"
	"strings"
	"unicode/utf8"
)

// Stereo channels of a phone call (Segment.Channel, Account.AgentChannel).
const (
	ChannelLeft  = "left"
	ChannelRight = "right"
)

// ValidChannel reports whether c names a channel, or is empty (not known).
func ValidChannel(c string) bool { return c == "" || c == ChannelLeft || c == ChannelRight }

// SpeakerRole is who a phone call's speaker is for QA: the call centre's
// agent or its customer.
type SpeakerRole string

// Speaker roles; empty is not known.
const (
	SpeakerAgent    SpeakerRole = "agent"
	SpeakerCustomer SpeakerRole = "customer"
)

// ValidSpeakerRole reports whether r is a role, or empty.
func ValidSpeakerRole(r SpeakerRole) bool {
	return r == "" || r == SpeakerAgent || r == SpeakerCustomer
}

// SpeakerName is what people call one speaker of a recording: a role, a
// name ("Անի"), or both.
type SpeakerName struct {
	Role SpeakerRole `json:"role,omitempty"`
	Name string      `json:"name,omitempty"`
}

// MaxSpeakerName is the longest name a speaker may be given, in characters.
const MaxSpeakerName = 60

// NameSpeakers checks and sets the names and roles people gave j's
// speakers ("1", "2"): two speakers cannot share a role; empty entries
// are dropped. It reports whether any role changed (the checklist's
// answers then depend on other words).
func (j *Job) NameSpeakers(names map[string]SpeakerName) (rolesChanged bool, err error) {
	if j.Type != TypePhoneCall {
		return false, Invalid("not_a_call", "only a phone call's speakers can be named")
	}
	clean := map[string]SpeakerName{}
	taken := map[SpeakerRole]string{}
	for sp, n := range names {
		if sp != "1" && sp != "2" {
			return false, Invalid("invalid_speaker", "speaker %q is not 1 or 2", sp)
		}
		n.Name = strings.Join(strings.Fields(n.Name), " ")
		if !ValidSpeakerRole(n.Role) {
			return false, Invalid("invalid_speaker_role", "role %q is not agent or customer", n.Role)
		}
		if utf8.RuneCountInString(n.Name) > MaxSpeakerName {
			return false, Invalid("speaker_name_too_long", "a speaker's name is at most %d characters", MaxSpeakerName)
		}
		if n.Role != "" {
			if other, ok := taken[n.Role]; ok && other != sp {
				return false, Invalid("role_taken", "speakers %s and %s cannot both be the %s", other, sp, n.Role)
			}
			taken[n.Role] = sp
		}
		if n != (SpeakerName{}) {
			clean[sp] = n
		}
	}
	for _, sp := range []string{"1", "2"} {
		if j.Speakers[sp].Role != clean[sp].Role {
			rolesChanged = true
		}
	}
	j.Speakers = clean
	if len(clean) == 0 {
		j.Speakers = nil
	}
	return rolesChanged, nil
}

// SpeakerRoles says who each of j's speakers is: the names people gave on
// the recording's page first; else, for a stereo call of an account that
// says which channel its agents are on, the speaker heard on that channel
// is the agent and the other the customer.
func (j *Job) SpeakerRoles(agentChannel string) map[string]SpeakerName {
	out := map[string]SpeakerName{}
	for sp, n := range j.Speakers {
		out[sp] = n
	}
	if agentChannel == ChannelLeft || agentChannel == ChannelRight {
		for _, s := range j.Segments {
			if s.Channel == "" || s.Speaker == "" {
				continue
			}
			n := out[s.Speaker]
			if _, named := j.Speakers[s.Speaker]; named && j.Speakers[s.Speaker].Role != "" {
				continue
			}
			if n.Role == "" {
				n.Role = SpeakerCustomer
				if s.Channel == agentChannel {
					n.Role = SpeakerAgent
				}
				// A role a person gave the other speaker wins.
				if !roleTakenBy(j.Speakers, n.Role, s.Speaker) {
					out[s.Speaker] = n
				}
			}
		}
	}
	return out
}

func roleTakenBy(names map[string]SpeakerName, r SpeakerRole, except string) bool {
	for sp, n := range names {
		if sp != except && n.Role == r {
			return true
		}
	}
	return false
}

// SpeakerOf is the speaker who has role r, or "" when none has it.
func SpeakerOf(roles map[string]SpeakerName, r SpeakerRole) string {
	var sps []string
	for sp, n := range roles {
		if n.Role == r {
			sps = append(sps, sp)
		}
	}
	sort.Strings(sps)
	if len(sps) == 0 {
		return ""
	}
	return sps[0]
}

// SegmentsOf keeps the segments spoken by speaker sp.
func SegmentsOf(segs []Segment, sp string) []Segment {
	var out []Segment
	for _, s := range segs {
		if s.Speaker == sp {
			out = append(out, s)
		}
	}
	return out
}

// RoleGroup is a set of checklist questions answered from the same words:
// the whole call (Role empty), or what one speaker said.
type RoleGroup struct {
	Role      SpeakerRole
	Speaker   string    // the speaker with Role; empty for the whole call
	Segments  []Segment // the words the questions read
	Questions []Question
	// Unknown: no speaker of the call has Role, so its questions cannot be
	// answered: they are "unclear" with RoleUnknownReason.
	Unknown bool
}

// RoleUnknownReason is the reason of a question limited to a role that
// nobody in the call has.
func RoleUnknownReason(r SpeakerRole) string {
	return "the call's " + string(r) + " is not identified: name the speakers on the recording's page"
}

// GroupByRole splits a checklist's questions by the words each may read
// (Question.Role): a question limited to a role reads only the words of the
// speaker who has it (roles from Job.SpeakerRoles). Only phone calls have
// roles: on another recording every question reads the whole recording.
// Groups come whole call first, then agent, then customer.
func GroupByRole(j Job, roles map[string]SpeakerName, questions []Question) []RoleGroup {
	byRole := map[SpeakerRole]*RoleGroup{}
	var order []SpeakerRole
	for _, q := range questions {
		r := q.Role
		if j.Type != TypePhoneCall {
			r = ""
		}
		g := byRole[r]
		if g == nil {
			g = &RoleGroup{Role: r, Segments: j.Segments}
			if r != "" {
				g.Speaker = SpeakerOf(roles, r)
				g.Unknown = g.Speaker == ""
				g.Segments = SegmentsOf(j.Segments, g.Speaker)
			}
			byRole[r] = g
			order = append(order, r)
		}
		g.Questions = append(g.Questions, q)
	}
	rank := map[SpeakerRole]int{"": 0, SpeakerAgent: 1, SpeakerCustomer: 2}
	sort.Slice(order, func(a, b int) bool { return rank[order[a]] < rank[order[b]] })
	out := make([]RoleGroup, 0, len(order))
	for _, r := range order {
		out = append(out, *byRole[r])
	}
	return out
}

// SpeakerText writes segments as phone-call lines that keep each line's
// own speaker number ("Խոսնակ 2: …"), for a transcript of one speaker's
// words.
func SpeakerText(segs []Segment) string {
	var lines []string
	for _, s := range segs {
		t := strings.TrimSpace(s.Text)
		if t == "" {
			continue
		}
		if s.Speaker != "" {
			t = SpeakerLabel + " " + s.Speaker + ": " + t
		}
		lines = append(lines, t)
	}
	return strings.Join(lines, "\n")
}

// Reasons of the built-in analyser's "unclear" answers, here so that pages
// can say them in their own language.
const (
	ReasonNoPhrases   = "the question lists no expected phrases; the built-in analyser answers only from phrases"
	ReasonApproximate = "an expected phrase was found only approximately"
)

// SameRoles reports whether a and b give every speaker the same role
// (names aside).
func SameRoles(a, b map[string]SpeakerName) bool {
	for _, sp := range []string{"1", "2"} {
		if a[sp].Role != b[sp].Role {
			return false
		}
	}
	return true
}
