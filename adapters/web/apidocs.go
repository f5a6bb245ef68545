package web

import (
	"encoding/json"
	"fmt"
	"html"
	"html/template"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/hyscribe/hyscribe/domain"
)

// The API quick start page renders the service's own OpenAPI document on
// the server: an offline viewer with nothing to fetch from elsewhere (the
// CSP allows no other origin anyway) and readable without JavaScript.

type oaDoc struct {
	Info struct {
		Title, Version, Summary, Description string
	}
	Paths      map[string]map[string]json.RawMessage
	Components struct {
		Schemas   map[string]oaSchema
		Responses map[string]oaResponse
	}
}

type oaOperation struct {
	OperationID string `json:"operationId"`
	Summary     string
	Description string
	Parameters  []struct {
		Name, In, Description string
		Required              bool
		Schema                oaSchema
	}
	RequestBody *struct {
		Content map[string]struct{ Schema oaSchema }
	} `json:"requestBody"`
	Responses map[string]oaResponse
}

type oaResponse struct {
	Ref         string `json:"$ref"`
	Description string
}

type oaSchema struct {
	Ref         string `json:"$ref"`
	Type        any
	Description string
	Properties  map[string]oaSchema
	Required    []string
	Enum        []any
	Const       any
	AllOf       []oaSchema `json:"allOf"`
	OneOf       []oaSchema `json:"oneOf"`
	Items       *oaSchema
	Boolean     bool `json:"-"` // a boolean schema
}

// apiDocs is the OpenAPI document laid out for the page.
type apiDocs struct {
	Title, Version string
	Description    template.HTML
	Operations     []apiOperation
	Schemas        []apiSchema
}

type apiOperation struct {
	ID, Method, Path, Summary string
	Description               template.HTML
	Params                    []apiField
	Body                      string // the request body's schema name
	Responses                 []apiField
}

type apiSchema struct {
	Name        string
	Description template.HTML
	Fields      []apiField
}

type apiField struct {
	Name, Type, In string
	Required       bool
	Description    template.HTML
}

// parseAPIDocs reads an OpenAPI 3.1 document.
func parseAPIDocs(raw []byte) (*apiDocs, error) {
	var d oaDoc
	if err := json.Unmarshal(raw, &d); err != nil {
		return nil, fmt.Errorf("openapi: %w", err)
	}
	out := &apiDocs{Title: d.Info.Title, Version: d.Info.Version, Description: inlineCode(d.Info.Description)}
	for _, p := range slices.Sorted(maps.Keys(d.Paths)) {
		methods := make([]string, 0, len(d.Paths[p]))
		for m := range d.Paths[p] {
			if slices.Contains([]string{"get", "put", "post", "delete", "patch"}, m) {
				methods = append(methods, m)
			}
		}
		sort.Strings(methods)
		for _, m := range methods {
			var op oaOperation
			if err := json.Unmarshal(d.Paths[p][m], &op); err != nil {
				return nil, fmt.Errorf("openapi %s %s: %w", m, p, err)
			}
			o := apiOperation{ID: op.OperationID, Method: strings.ToUpper(m), Path: p, Summary: op.Summary, Description: inlineCode(op.Description)}
			for _, pr := range op.Parameters {
				o.Params = append(o.Params, apiField{Name: pr.Name, In: pr.In, Required: pr.Required, Type: schemaType(pr.Schema), Description: inlineCode(pr.Description)})
			}
			if op.RequestBody != nil {
				for _, c := range op.RequestBody.Content {
					o.Body = schemaType(c.Schema)
				}
			}
			for _, code := range slices.Sorted(maps.Keys(op.Responses)) {
				r := op.Responses[code]
				if r.Ref != "" {
					r = d.Components.Responses[refName(r.Ref)]
				}
				o.Responses = append(o.Responses, apiField{Name: code, Description: inlineCode(r.Description)})
			}
			out.Operations = append(out.Operations, o)
		}
	}
	for _, n := range slices.Sorted(maps.Keys(d.Components.Schemas)) {
		s := d.Components.Schemas[n]
		as := apiSchema{Name: n, Description: inlineCode(s.Description)}
		fields := map[string]apiField{}
		var order []string
		var collect func(s oaSchema)
		collect = func(s oaSchema) {
			if s.Ref != "" {
				collect(d.Components.Schemas[refName(s.Ref)])
			}
			for _, p := range s.AllOf {
				collect(p)
			}
			for _, k := range slices.Sorted(maps.Keys(s.Properties)) {
				p := s.Properties[k]
				if p.Boolean {
					continue
				}
				f, seen := fields[k]
				if !seen {
					order = append(order, k)
					f = apiField{Name: k}
				}
				if t := schemaType(p); t != "" {
					f.Type = t
				}
				if p.Description != "" {
					f.Description = inlineCode(p.Description)
				}
				f.Required = f.Required || slices.Contains(s.Required, k)
				fields[k] = f
			}
			for _, k := range s.Required {
				if f, ok := fields[k]; ok {
					f.Required = true
					fields[k] = f
				}
			}
		}
		collect(s)
		for _, k := range order {
			as.Fields = append(as.Fields, fields[k])
		}
		if len(s.OneOf) > 0 {
			var alts []string
			for _, o := range s.OneOf {
				alts = append(alts, schemaType(o))
			}
			as.Fields = append(as.Fields, apiField{Name: "oneOf", Type: strings.Join(alts, " | ")})
		}
		out.Schemas = append(out.Schemas, as)
	}
	return out, nil
}

// UnmarshalJSON also reads a boolean schema (`"error": false` forbids a
// property): it has no type and is left out of the page.
func (s *oaSchema) UnmarshalJSON(b []byte) error {
	if t := strings.TrimSpace(string(b)); t == "true" || t == "false" {
		*s = oaSchema{Boolean: true}
		return nil
	}
	type plain oaSchema
	return json.Unmarshal(b, (*plain)(s))
}

func refName(ref string) string { return ref[strings.LastIndex(ref, "/")+1:] }

// schemaType is a schema in a few words: its $ref name, type, enum or const.
func schemaType(s oaSchema) string {
	switch {
	case s.Ref != "":
		return refName(s.Ref)
	case s.Const != nil:
		return fmt.Sprintf("%q", fmt.Sprint(s.Const))
	case len(s.Enum) > 0:
		var vs []string
		for _, e := range s.Enum {
			vs = append(vs, fmt.Sprintf("%q", fmt.Sprint(e)))
		}
		return strings.Join(vs, " | ")
	case s.Items != nil:
		return "array of " + schemaType(*s.Items)
	}
	switch t := s.Type.(type) {
	case string:
		return t
	case []any:
		var ts []string
		for _, x := range t {
			ts = append(ts, fmt.Sprint(x))
		}
		return strings.Join(ts, " | ")
	}
	return ""
}

// inlineCode escapes text and shows its `backticked` parts as code: the
// only markup the document's descriptions use.
func inlineCode(s string) template.HTML {
	parts := strings.Split(s, "`")
	var b strings.Builder
	for i, p := range parts {
		if i%2 == 1 && i < len(parts)-1 {
			b.WriteString("<code>" + html.EscapeString(p) + "</code>")
			continue
		}
		if i%2 == 1 {
			b.WriteString("`")
		}
		b.WriteString(strings.ReplaceAll(html.EscapeString(p), "\n\n", "<br><br>"))
	}
	return template.HTML(b.String()) // every part escaped above
}

type apiPageData struct {
	BaseURL string
	Keys    []domain.APIKey // the account's active keys, for their prefixes
	Docs    *apiDocs
	Owner   bool
	Plan    domain.Plan
}

// apiPage is GET /app/api: the quick start with the account's own base URL,
// the API reference (the OpenAPI document, rendered here) and how to verify
// webhooks.
func (w *Web) apiPage(c *fiber.Ctx) error {
	v := visitorOf(c)
	keys, err := w.queries.ListAPIKeys.Handle(c.UserContext(), v.Account.ID)
	if err != nil {
		return err
	}
	active := keys[:0]
	for _, k := range keys {
		if k.Active() {
			active = append(active, k)
		}
	}
	vw := w.newView(c, v, "api.title", "api")
	vw.Data = &apiPageData{BaseURL: strings.TrimRight(w.cfg.PublicURL, "/"), Keys: active, Docs: w.apiDocs, Owner: v.User.Role == domain.RoleOwner, Plan: v.Account.Plan}
	return w.render(c, "api", vw)
}
