package domain

import (
	"encoding/json"
	"strings"
	"time"
)

// Checklist is an account's QA checklist (spec §2.2; docs/architecture.md, Operating contract).
type Checklist struct {
	ID        string
	AccountID AccountID
	Name      string
	Version   int
	Questions []Question
	Archived  bool
	CreatedAt time.Time
}

// Question is one checklist item; Expect lists phrases whose presence answers "yes".
type Question struct {
	ID     string   `json:"id"`
	Text   string   `json:"text"`
	Expect []string `json:"expect,omitempty"`
	Weight float64  `json:"weight,omitempty"`
	// Role limits the question to one speaker's words (a phone call's
	// agent or customer); empty reads the whole call.
	Role SpeakerRole `json:"role,omitempty"`
}

// ChecklistFile is the CLI's checklist file format (docs/architecture.md, Operating contract).
type ChecklistFile struct {
	Name      string     `json:"name"`
	Questions []Question `json:"questions"`
}

// ParseChecklistFile validates a checklist definition.
func ParseChecklistFile(b []byte) (ChecklistFile, error) {
	var f ChecklistFile
	if err := json.Unmarshal(b, &f); err != nil {
		return f, Invalid("invalid_checklist", "checklist is not valid JSON: %v", err)
	}
	f.Name = strings.TrimSpace(f.Name)
	if f.Name == "" {
		return f, Invalid("invalid_checklist", `checklist "name" is required`)
	}
	if len(f.Questions) == 0 {
		return f, Invalid("invalid_checklist", "checklist needs at least one question")
	}
	if err := CheckChecklistBounds(f.Name, f.Questions); err != nil {
		return f, err
	}
	seen := map[string]bool{}
	for i, q := range f.Questions {
		if strings.TrimSpace(q.ID) == "" || strings.TrimSpace(q.Text) == "" {
			return f, Invalid("invalid_checklist", "question %d needs an \"id\" and a \"text\"", i+1)
		}
		if q.Weight < 0 || q.Weight != q.Weight {
			return f, Invalid("invalid_checklist", "question %q: \"weight\" must be a positive number", q.ID)
		}
		if !ValidSpeakerRole(q.Role) {
			return f, Invalid("invalid_checklist", "question %q: \"role\" must be \"agent\", \"customer\" or empty", q.ID)
		}
		if seen[q.ID] {
			return f, Invalid("invalid_checklist", "question id %q is used twice", q.ID)
		}
		seen[q.ID] = true
	}
	return f, nil
}
