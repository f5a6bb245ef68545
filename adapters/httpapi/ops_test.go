package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/domain"
)

func TestHealthz(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := e.do("GET", "/healthz", nil, nil)
	if r.status != 200 || string(r.body) != `{"status":"ok"}` {
		t.Fatalf("ready: %d %s", r.status, r.body)
	}
	e.ready.Store(false)
	e.do("GET", "/healthz", nil, nil).wantError(t, 503, "not_ready")
}

func TestPanicIsA500AndTheServerLivesOn(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(o *options) {
		o.ready = func() bool { panic("boom: secret internal state") }
	})
	r := e.do("GET", "/healthz", nil, nil)
	if msg := r.wantError(t, 500, "internal"); msg != "internal server error" {
		t.Fatalf("panic message %q", msg)
	}
	if strings.Contains(string(r.body), "boom") {
		t.Fatalf("the panic value leaked: %s", r.body)
	}
	if !strings.Contains(e.logs.String(), "boom: secret internal state") {
		t.Fatal("the panic is not in the log")
	}
	// Still serving.
	if r := e.do("GET", "/api/openapi.json", nil, nil); r.status != 200 {
		t.Fatalf("after a panic: %d", r.status)
	}
}

func TestMetrics(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, key := e.account(domain.PlanBusiness)
	id, _ := e.newJob(key)
	e.poll(key, id)
	e.poll(key, id)
	e.poll(key, "missing")
	e.do("HEAD", "/api/getTranscription", nil, nil)
	e.do("GET", "/no/such/page", nil, nil)
	// Another component's metric in the shared registry.
	e.reg.Counter("hyscribe_jobs_created_total", "Jobs created.", "type").With("single_voice").Inc()

	r := e.do("GET", "/metrics", nil, nil)
	if r.status != 200 || !strings.HasPrefix(r.header.Get("Content-Type"), "text/plain; version=0.0.4") {
		t.Fatalf("metrics: %d %q", r.status, r.header.Get("Content-Type"))
	}
	samples := map[string]float64{}
	line := regexp.MustCompile(`^([a-zA-Z_:][a-zA-Z0-9_:]*(?:\{[^}]*\})?) (\S+)$`)
	for _, l := range strings.Split(strings.TrimSpace(string(r.body)), "\n") {
		if strings.HasPrefix(l, "# HELP ") || strings.HasPrefix(l, "# TYPE ") {
			continue
		}
		m := line.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("not exposition format: %q", l)
		}
		v, err := strconv.ParseFloat(m[2], 64)
		if err != nil {
			t.Fatalf("value in %q: %v", l, err)
		}
		samples[m[1]] = v
	}
	// The client library writes labels in name order.
	want := map[string]float64{
		`http_requests_total{code="200",method="GET",route="/api/getTranscription"}`:     2,
		`http_requests_total{code="404",method="GET",route="/api/getTranscription"}`:     1,
		`http_requests_total{code="405",method="HEAD",route="/api/getTranscription"}`:    1,
		`http_requests_total{code="200",method="POST",route="/api/createTranscription"}`: 1,
		`http_requests_total{code="404",method="GET",route="unmatched"}`:                 1,
		`http_request_duration_seconds_count{route="/api/getTranscription"}`:             4,
		`http_request_duration_seconds_bucket{route="/api/getTranscription",le="+Inf"}`:  4,
		`hyscribe_jobs_created_total{type="single_voice"}`:                               1,
	}
	for k, v := range want {
		if samples[k] != v {
			t.Errorf("%s = %v, want %v", k, samples[k], v)
		}
	}
	if !strings.Contains(string(r.body), "# TYPE http_request_duration_seconds histogram") {
		t.Error("no histogram TYPE line")
	}
}

func TestClassify(t *testing.T) {
	t.Parallel()
	cases := []struct {
		err    error
		status int
		code   string
		msg    string
	}{
		{domain.Invalid("invalid_type", "bad type"), 400, "invalid_type", "bad type"},
		{fmt.Errorf("invalid API key: %w", domain.ErrUnauthorized), 401, "unauthorized", "invalid API key"},
		{&app.AuthError{Msg: "API key has been revoked"}, 401, "unauthorized", "API key has been revoked"},
		{fmt.Errorf("plan: %w", domain.ErrForbidden), 403, "forbidden", "plan"},
		{domain.ErrNotFound, 404, "not_found", "not found"},
		{fmt.Errorf("audio was already uploaded for this job: %w", domain.ErrConflict), 409, "conflict", "audio was already uploaded for this job"},
		{fmt.Errorf("too big: %w", domain.ErrTooLarge), 413, "too_large", "too big"},
		{&app.RateLimitError{Limit: 60, RetryAfter: 7}, 429, "rate_limited", domain.RateLimitMessage(60, 7)},
		{fmt.Errorf("sqlite: database is locked (5): %w", domain.ErrUnavailable), 503, "unavailable", msgUnavailable},
		{fmt.Errorf("blob: write audio/x: no space left on device: %w", domain.ErrStorageFull), 503, "storage_full", msgStorageFull},
		{pastDeadline(context.Background(), fmt.Errorf("postgres.GetJob: %w", context.DeadlineExceeded)), 503, "unavailable", msgUnavailable},
		{errors.New("sql: connection refused at 10.0.0.3"), 500, "internal", msgInternal},
		{fmt.Errorf("wrapped: %w", domain.ErrInvalidTransition), 500, "internal", msgInternal},
	}
	for _, c := range cases {
		status, code, msg, _ := classify(c.err)
		if status != c.status || code != c.code || msg != c.msg {
			t.Errorf("classify(%v) = %d %s %q, want %d %s %q", c.err, status, code, msg, c.status, c.code, c.msg)
		}
	}
}

// TestOpenAPIMatchesRoutes checks the served document against the routes
// the fiber app actually registered, and its own internal consistency.
func TestOpenAPIMatchesRoutes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := e.do("GET", "/api/openapi.json", nil, nil)
	if r.status != 200 || r.header.Get("Content-Type") != "application/json" {
		t.Fatalf("openapi.json: %d %q", r.status, r.header.Get("Content-Type"))
	}
	var doc map[string]any
	if err := json.Unmarshal(r.body, &doc); err != nil {
		t.Fatalf("openapi.json is not JSON: %v", err)
	}
	if doc["openapi"] != "3.1.0" || doc["info"].(map[string]any)["version"] != "1.0.0" {
		t.Fatalf("openapi %v, version %v", doc["openapi"], doc["info"].(map[string]any)["version"])
	}
	paths := doc["paths"].(map[string]any)

	// Every operation the app serves is documented under its operationId,
	// and nothing else is.
	toOpenAPI := regexp.MustCompile(`:([A-Za-z]+)`)
	served := map[string]string{} // "METHOD path" → route name
	allPaths := map[string]bool{}
	for _, rt := range e.app.GetRoutes(true) {
		p := toOpenAPI.ReplaceAllString(rt.Path, "{$1}")
		allPaths[p] = true
		if rt.Name != "" {
			served[rt.Method+" "+p] = rt.Name
		}
	}
	documented := map[string]string{}
	for p, item := range paths {
		for method, op := range item.(map[string]any) {
			if method == "servers" || method == "parameters" {
				continue
			}
			documented[strings.ToUpper(method)+" "+p] = op.(map[string]any)["operationId"].(string)
		}
		if !allPaths[p] {
			t.Errorf("documented path %s is not served", p)
		}
	}
	if !maps.Equal(served, documented) {
		t.Fatalf("served operations %v\ndocumented %v", served, documented)
	}
	for p := range allPaths {
		if _, ok := paths[p]; !ok {
			t.Errorf("served path %s is not documented", p)
		}
	}

	// Expected statuses per operation, and the shape of each.
	statuses := map[string][]string{
		"POST /api/createTranscription": {"200", "400", "401", "403", "405", "413", "422", "429", "500", "503"},
		"GET /api/exportTranscription":  {"200", "400", "401", "403", "404", "405", "409", "429", "500", "503"},
		"POST /api/deleteTranscription": {"200", "400", "401", "403", "404", "405", "413", "429", "500", "503"},
		"GET /api/getTranscription":     {"200", "400", "401", "403", "404", "405", "429", "500", "503"},
		"PUT /upload/{docId}":           {"200", "400", "403", "405", "409", "413", "429", "500", "503"},
		"GET /healthz":                  {"200", "405", "500", "503"},
	}
	for key, want := range statuses {
		method, p, _ := strings.Cut(key, " ")
		op := paths[p].(map[string]any)[strings.ToLower(method)].(map[string]any)
		var got []string
		for code, resp := range op["responses"].(map[string]any) {
			got = append(got, code)
			res := resolve(t, doc, resp)
			if code >= "400" {
				schema := res["content"].(map[string]any)["application/json"].(map[string]any)["schema"].(map[string]any)
				if schema["$ref"] != "#/components/schemas/Error" {
					t.Errorf("%s %s: error schema %v", key, code, schema)
				}
			}
			hdrs, _ := res["headers"].(map[string]any)
			switch code {
			case "429":
				if hdrs["Retry-After"] == nil {
					t.Errorf("%s 429 lacks Retry-After", key)
				}
			case "401":
				if hdrs["WWW-Authenticate"] == nil {
					t.Errorf("%s 401 lacks WWW-Authenticate", key)
				}
			case "405":
				if hdrs["Allow"] == nil {
					t.Errorf("%s 405 lacks Allow", key)
				}
			}
		}
		sort.Strings(got)
		if !slices.Equal(got, want) {
			t.Errorf("%s documents %v, want %v", key, got, want)
		}
	}

	// Security: bearer on the API, none on the rest; the upload has its own server.
	scheme := doc["components"].(map[string]any)["securitySchemes"].(map[string]any)["bearerAuth"].(map[string]any)
	if scheme["type"] != "http" || scheme["scheme"] != "bearer" {
		t.Fatalf("bearer scheme %v", scheme)
	}
	for _, p := range []string{"/upload/{docId}", "/healthz", "/metrics", "/api/openapi.json"} {
		for m, op := range paths[p].(map[string]any) {
			if m == "servers" {
				continue
			}
			if sec, ok := op.(map[string]any)["security"].([]any); !ok || len(sec) != 0 {
				t.Errorf("%s %s must not require the API key", m, p)
			}
		}
	}
	if _, ok := paths["/upload/{docId}"].(map[string]any)["servers"]; !ok {
		t.Error("the upload path has no servers entry of its own")
	}

	// Every $ref resolves.
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if _, ok := v["$ref"]; ok {
				resolve(t, doc, v)
			}
			for _, x := range v {
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(doc)
}

// resolve follows a local $ref (or returns v itself).
func resolve(t *testing.T, doc map[string]any, v any) map[string]any {
	t.Helper()
	m := v.(map[string]any)
	ref, ok := m["$ref"].(string)
	if !ok {
		return m
	}
	cur := any(doc)
	for _, part := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
		next, ok := cur.(map[string]any)[part]
		if !ok {
			t.Fatalf("unresolved $ref %s", ref)
		}
		cur = next
	}
	return cur.(map[string]any)
}
