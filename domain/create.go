package domain

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// MaxCreateBody is the largest createTranscription body accepted (docs/decisions.md, API).
const MaxCreateBody = 256 << 10

// CreateRequest is a validated createTranscription body (spec §2.2).
type CreateRequest struct {
	Type        JobType
	Metadata    json.RawMessage // a JSON object, or empty when absent
	ChecklistID string
	// ChecklistVersion is not parsed: the use case sets it to the latest
	// version of the checklist when the job is created.
	ChecklistVersion int
}

// ParseCreateRequest validates a createTranscription body and says exactly
// what is wrong with a bad one.
func ParseCreateRequest(body []byte) (CreateRequest, error) {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return CreateRequest{}, Invalid("empty_body", `request body is empty: expected a JSON object such as {"type": "single_voice"}`)
	}
	if err := CheckUTF8(body); err != nil {
		return CreateRequest{}, err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil {
		if body[0] != '{' {
			return CreateRequest{}, Invalid("invalid_json", "request body must be a JSON object")
		}
		return CreateRequest{}, Invalid("invalid_json", "request body is not valid JSON: %v", err)
	}
	if fields == nil {
		return CreateRequest{}, Invalid("invalid_json", "request body must be a JSON object")
	}
	var req CreateRequest
	raw, ok := fields["type"]
	if !ok || isNull(raw) {
		return CreateRequest{}, Invalid("missing_type", `"type" is required: "single_voice" or "phone_call"`)
	}
	var typ string
	if err := json.Unmarshal(raw, &typ); err != nil {
		return CreateRequest{}, Invalid("invalid_type", `"type" must be a string: "single_voice" or "phone_call"`)
	}
	req.Type = JobType(typ)
	if err := req.checkType(); err != nil {
		return CreateRequest{}, err
	}
	if raw, ok := fields["metadata"]; ok && !isNull(raw) {
		m, err := cleanMetadata(raw)
		if err != nil {
			return CreateRequest{}, err
		}
		req.Metadata = m
	}
	if raw, ok := fields["checklistId"]; ok && !isNull(raw) {
		if err := json.Unmarshal(raw, &req.ChecklistID); err != nil {
			return CreateRequest{}, Invalid("invalid_checklist", `"checklistId" must be a string`)
		}
		if req.ChecklistID == "" {
			return CreateRequest{}, Invalid("invalid_checklist", `"checklistId" must not be empty`)
		}
	}
	return req, nil
}

// Check validates a request built without JSON (the web application's
// upload form) by the rules ParseCreateRequest applies, with the same
// errors, and returns it with its metadata compacted. A parsed request
// passes unchanged.
func (r CreateRequest) Check() (CreateRequest, error) {
	if err := r.checkType(); err != nil {
		return CreateRequest{}, err
	}
	if len(r.Metadata) > 0 {
		if err := CheckUTF8(r.Metadata); err != nil {
			return CreateRequest{}, err
		}
		m, err := cleanMetadata(r.Metadata)
		if err != nil {
			return CreateRequest{}, err
		}
		r.Metadata = m
	}
	return r, nil
}

func (r CreateRequest) checkType() error {
	if !r.Type.Valid() {
		return Invalid("invalid_type", `"type" must be "single_voice" or "phone_call", not %q`, truncate(string(r.Type), 40))
	}
	return nil
}

// cleanMetadata is raw compacted, when it is a JSON object within the
// metadata bounds (checkMetadata).
func cleanMetadata(raw json.RawMessage) (json.RawMessage, error) {
	if raw[0] != '{' {
		return nil, Invalid("invalid_metadata", `"metadata" must be a JSON object`)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, raw); err != nil {
		return nil, Invalid("invalid_metadata", `"metadata" is not valid JSON: %v`, err)
	}
	if err := checkMetadata(compact.Bytes()); err != nil {
		return nil, err
	}
	return compact.Bytes(), nil
}

func isNull(raw json.RawMessage) bool { return string(raw) == "null" }

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// ErrUnknownChecklist is the error for a checklistId the account lacks.
func ErrUnknownChecklist(id string) error {
	return Invalid("unknown_checklist", "%s", fmt.Sprintf("checklist %q does not exist in this account", truncate(id, 80)))
}
