# hyscribe — see README.md. `make run` and `make test` do all set-up themselves.
SHELL := /bin/bash
GO ?= go
PKGS := ./...
DATA ?= ./data
# The Postgres the tests use (.ci/deps.sh starts it); each test makes its own
# schema in it. Unset it (make test HYSCRIBE_TEST_DATABASE_URL=) to skip them.
HYSCRIBE_TEST_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable
export HYSCRIBE_TEST_DATABASE_URL
# The ClickHouse server .ci/clickhouse.sh starts for the tests (native port).
CLICKHOUSE_TEST_DSN ?= clickhouse://127.0.0.1:19000/default
export CLICKHOUSE_TEST_DSN
# The MinIO binary the S3 tests start (.ci/deps.sh builds it); each test runs
# its own server. Unset it to skip them.
HYSCRIBE_TEST_MINIO_BIN ?= $(CURDIR)/.cache/bin/minio
export HYSCRIBE_TEST_MINIO_BIN
# The Chromium the web application's browser tests drive (.ci/deps.sh
# installs Debian's). Set, a missing browser fails the tests; unset, they skip.
HYSCRIBE_TEST_CHROMIUM ?= /usr/bin/chromium
export HYSCRIBE_TEST_CHROMIUM
# The Python with Debian's aiosmtpd, the SMTP server the e-mail tests send
# through (.ci/deps.sh installs it). Set, a missing aiosmtpd fails them.
HYSCRIBE_TEST_SMTPD_PYTHON ?= /usr/bin/python3
export HYSCRIBE_TEST_SMTPD_PYTHON
# promtool checks the alert rules, the dashboard's queries and /metrics
# (.ci/deps.sh installs Debian's prometheus package); kubeconform lints
# deploy/k8s against the Kubernetes schemas in deploy/k8s/schemas
# (.ci/deps.sh installs it from the Go module proxy). Unset to skip.
HYSCRIBE_TEST_PROMTOOL ?= promtool
export HYSCRIBE_TEST_PROMTOOL
HYSCRIBE_TEST_KUBECONFORM ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/hyscribe/bin/kubeconform
export HYSCRIBE_TEST_KUBECONFORM
# kube-score (.ci/deps.sh builds it from the Go module proxy) scores
# deploy/k8s in deploy's tests. Unset to skip.
HYSCRIBE_TEST_KUBESCORE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/hyscribe/bin/kube-score
export HYSCRIBE_TEST_KUBESCORE
# The npm packages of the integrators' tests (standardwebhooks, @redocly/cli),
# installed by .ci/deps.sh outside the work tree and run with Debian's node.
# Set, missing packages fail the tests; unset, they skip.
HYSCRIBE_TEST_NPM ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/hyscribe/npm
export HYSCRIBE_TEST_NPM
# The oldest Go the client module claims (client/go.mod), fetched from the
# module proxy by .ci/deps.sh.
GO_OLDEST ?= $(shell $(GO) env GOMODCACHE)/golang.org/toolchain@v0.0.1-go1.22.12.$(shell $(GO) env GOOS)-$(shell $(GO) env GOARCH)/bin/go
# Where the browser tests save their screenshots (look at them).
HYSCRIBE_SCREENSHOTS ?= $(CURDIR)/.artifacts/screenshots
export HYSCRIBE_SCREENSHOTS

.PHONY: run build test test-short fuzz bdd bench lint deps eval eval-deps ubm fmt clean up down

## run: the whole service in one process on embedded defaults (SQLite, embedded Kafka, local uploads); installs Debian's ffmpeg, the MP3 decoder, when missing
run:
	@bash .ci/ffmpeg.sh
	HYSCRIBE_WEBHOOK_ALLOW_PRIVATE=$${HYSCRIBE_WEBHOOK_ALLOW_PRIVATE:-true} \
	HYSCRIBE_DATA_DIR=$${HYSCRIBE_DATA_DIR:-$(DATA)} \
	$(GO) run ./cmd/hyscribe serve

## build: the one binary, ./hyscribe, stamped with its version and commit as the Dockerfile's
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT ?= $(shell git rev-parse HEAD 2>/dev/null)
build:
	$(GO) build -trimpath -ldflags="-X github.com/hyscribe/hyscribe/cmd/hyscribe/cli.version=$(VERSION) -X github.com/hyscribe/hyscribe/cmd/hyscribe/cli.commit=$(COMMIT)" -o hyscribe ./cmd/hyscribe

## deps: install and start what the tests need on a fresh machine (kcat, Postgres, MinIO binary, promtool, kubeconform, kube-score)
deps:
	bash .ci/deps.sh

## test: lint, then every test, with the race detector, after installing what they need
test: deps lint
	$(GO) test -race -count=1 -timeout 30m $(PKGS)
	@# The Go client is its own module (go ./... stops at it): its tests, then
	@# it and an integrator's module requiring it, on the oldest Go it claims.
	cd client && $(GO) test -race -count=1 ./...
	cd client && GOTOOLCHAIN=local $(GO_OLDEST) vet ./... && GOTOOLCHAIN=local $(GO_OLDEST) test -count=1 ./...
	cd client/compat && GOTOOLCHAIN=local $(GO_OLDEST) vet ./... && GOTOOLCHAIN=local $(GO_OLDEST) test -count=1 ./...
	@# The race detector slows MP3 decoding so much that the long stereo call
	@# is scaled down under -race; here it runs at its full two hours.
	$(GO) test -count=1 -run '^TestLongStereoCallIsChunkedUnderTheEnginesLimit$$' ./app/
	@$(MAKE) --no-print-directory fuzz

# The fuzz targets over what parses untrusted bytes (docs/security.md): the
# MP3 sniffer and frame scanner, the createTranscription body, the upload
# address and the request framing check. An input that fails is saved by go test under the package's
# testdata/fuzz/<target>/ and replayed by every later go test: commit it.
FUZZTIME ?= 5s
FUZZ_TARGETS := ./adapters/mp3:FuzzSniff ./adapters/mp3:FuzzProbe ./domain:FuzzParseCreateRequest \
	./adapters/httpapi:FuzzParseUploadQuery ./adapters/httpapi:FuzzFramingError ./adapters/blob:FuzzVerifyUpload

## fuzz: each fuzz target for FUZZTIME (default 5s); make test runs it
fuzz:
	@set -e; for t in $(FUZZ_TARGETS); do \
		echo "fuzz $${t##*:} in $${t%%:*} for $(FUZZTIME)"; \
		$(GO) test -run '^$$' -fuzz "^$${t##*:}\$$" -fuzztime $(FUZZTIME) $${t%%:*}; \
	done

## test-short: the tests that need no outside server or tool
test-short:
	CLICKHOUSE_TEST_DSN= $(GO) test -short -count=1 $(PKGS)

## bdd: the godog scenarios only (features/*.feature)
bdd: deps
	$(GO) test -race -count=1 -v ./features/

## eval: measured quality: on synthetic two-speaker calls (espeak-ng + sox + lame, installed
## if missing) the diarizer's error rate, words given the right speaker and boundary error,
## then ROUGE of the built-in summaries and titles
eval: eval-deps
	$(GO) run ./cmd/evaldiarize
	@echo
	@echo "held-out voices (never tuned on):"
	$(GO) run ./cmd/evaldiarize -heldout -only heldout
	@echo
	$(GO) test -count=1 -run TestSummaryQuality -v ./adapters/extractive/ | sed -n 's/^ *quality_test.go:[0-9]*: //p'

eval-deps:
	bash .ci/eval-deps.sh

## ubm: trains the diarizer's background model again (adapters/diarize/ubm.json) from synthetic
## two-voice calls of eSpeak NG voices that no eval uses; the same bytes on every run
ubm: eval-deps
	$(GO) run ./cmd/trainubm -out adapters/diarize/ubm.json

## bench: Go benchmarks of the hot paths (Postgres ones, the ClickHouse sink in rows/s), then the
## API and pipeline under load (bench/run.sh: wrk, real processes); prints figures and
## rewrites its section of docs/performance.md; then time to transcript against a stand-in GPU
## engine (bench/engine.sh: CAPACITY, RTF; issue 28's three figures)
bench: deps
	$(GO) test -p 1 -run '^$$' -bench . -benchmem ./domain/... ./adapters/... ./app/...
	bash bench/run.sh
	bash bench/engine.sh

## lint: vet, staticcheck, gofmt and the dependency rule (domain and ports import no adapter or framework)
# staticcheck is installed from the Go module proxy into a cache outside the tree when missing.
STATICCHECK_VERSION := v0.8.2
STATICCHECK := $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/hyscribe/bin/staticcheck
$(STATICCHECK):
	GOBIN=$(dir $(STATICCHECK)) $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

lint: $(STATICCHECK)
	$(GO) vet $(PKGS)
	$(STATICCHECK) $(PKGS)
	cd client && $(GO) vet ./... && $(STATICCHECK) ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt needed"; exit 1; }
	$(GO) test -count=1 -run TestDependencyRule ./domain/

## up: the production-like stack of deploy/compose.yaml (Kafka, Postgres, ClickHouse, MinIO, speaches, 2 API + 2 workers); needs Docker with the compose plugin
up:
	@docker compose version >/dev/null 2>&1 || { echo "make up: needs Docker with the compose plugin (docker compose); none here" >&2; exit 1; }
	docker compose -f deploy/compose.yaml up -d --build

## down: stop that stack (volumes are kept; add -v by hand to drop them)
down:
	@docker compose version >/dev/null 2>&1 || { echo "make down: needs Docker with the compose plugin (docker compose); none here" >&2; exit 1; }
	docker compose -f deploy/compose.yaml down

fmt:
	gofmt -w $$(git ls-files '*.go')

clean:
	rm -rf hyscribe $(DATA)
