# hyscribe — see README.md. `make run` and `make test` do all set-up themselves.
SHELL := /bin/bash
GO ?= go
PKGS := ./...
DATA ?= ./data
# What the tests need from outside Go, and where they find it. A test never
# skips for want of it under CI=true (.ci/run sets it): a missing server,
# tool or package fails it, saying how to install it; elsewhere it is skipped
# with that message (internal/testenv). Unset, each is looked for where
# .ci/deps.sh puts it, so a plain `go test ./...` finds the same things.
#
# The Postgres the tests use (.ci/deps.sh starts it); each test makes its own
# schema in it. Unset, the tests use 127.0.0.1:5432 if it answers, else a
# throwaway cluster of their own (Debian's initdb and postgres).
HYSCRIBE_TEST_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable
export HYSCRIBE_TEST_DATABASE_URL
# The ClickHouse server .ci/clickhouse.sh starts for the tests (native port).
# Unset, the tests use 127.0.0.1:19000 if it answers, else a clickhouse-server
# of their own.
CLICKHOUSE_TEST_DSN ?= clickhouse://127.0.0.1:19000/default
export CLICKHOUSE_TEST_DSN
# The MinIO binary the S3 tests start (.ci/deps.sh builds it); each test runs
# its own server. Unset: .cache/bin/minio, its copy in ~/.cache/hyscribe, or
# minio on the PATH.
HYSCRIBE_TEST_MINIO_BIN ?= $(CURDIR)/.cache/bin/minio
export HYSCRIBE_TEST_MINIO_BIN
# The Chromium the web application's browser tests drive (.ci/deps.sh
# installs Debian's). Unset: chromium on the PATH.
HYSCRIBE_TEST_CHROMIUM ?= /usr/bin/chromium
export HYSCRIBE_TEST_CHROMIUM
# The Python with Debian's aiosmtpd, the SMTP server the e-mail tests send
# through (.ci/deps.sh installs it). Unset: /usr/bin/python3.
HYSCRIBE_TEST_SMTPD_PYTHON ?= /usr/bin/python3
export HYSCRIBE_TEST_SMTPD_PYTHON
# promtool checks the alert rules, the dashboard's queries and /metrics
# (.ci/deps.sh installs Debian's prometheus package); kubeconform lints
# deploy/k8s against the Kubernetes schemas in deploy/k8s/schemas
# (.ci/deps.sh installs it from the Go module proxy). Unset: promtool on the
# PATH, kubeconform in ~/.cache/hyscribe/bin.
HYSCRIBE_TEST_PROMTOOL ?= promtool
export HYSCRIBE_TEST_PROMTOOL
HYSCRIBE_TEST_KUBECONFORM ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/hyscribe/bin/kubeconform
export HYSCRIBE_TEST_KUBECONFORM
# kube-score (.ci/deps.sh builds it from the Go module proxy) scores
# deploy/k8s in deploy's tests. Unset: ~/.cache/hyscribe/bin/kube-score.
HYSCRIBE_TEST_KUBESCORE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/hyscribe/bin/kube-score
export HYSCRIBE_TEST_KUBESCORE
# The npm packages of the integrators' tests (standardwebhooks, @redocly/cli,
# axe-core), installed by .ci/deps.sh outside the work tree and run with
# Debian's node. Unset: ~/.cache/hyscribe/npm.
HYSCRIBE_TEST_NPM ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/hyscribe/npm
export HYSCRIBE_TEST_NPM
# The oldest Go the client module claims (client/go.mod), fetched from the
# module proxy by .ci/deps.sh.
GO_OLDEST ?= $(shell $(GO) env GOMODCACHE)/golang.org/toolchain@v0.0.1-go1.22.12.$(shell $(GO) env GOOS)-$(shell $(GO) env GOARCH)/bin/go
# The browser tests' screenshots go to a temporary directory removed after each test; to keep
# them and look at them: make test HYSCRIBE_SCREENSHOTS=$(CURDIR)/.artifacts/screenshots
ifdef HYSCRIBE_SCREENSHOTS
export HYSCRIBE_SCREENSHOTS
endif

.PHONY: run build test test-short fuzz bdd bench lint deps eval eval-deps ubm fmt clean up down engine generate

# Where `make run` builds the binary it runs (ignored by git, kept between runs
# so only the first build is slow).
RUN_BIN := .cache/bin/hyscribe

## run: the whole service in one process on embedded defaults (SQLite, embedded Kafka, local uploads); installs Debian's ffmpeg, the MP3 decoder, when missing
run:
	@bash .ci/ffmpeg.sh
	@echo "make run: building $(RUN_BIN) (the first build compiles every dependency and takes a few minutes; later ones seconds)..."
	@$(GO) build -o $(RUN_BIN) ./cmd/hyscribe
	@echo "make run: starting hyscribe serve on http://$${HYSCRIBE_HTTP_ADDR:-127.0.0.1:8080}, data in $${HYSCRIBE_DATA_DIR:-$(DATA)} (Ctrl-C stops it)"
	@[ -n "$$HYSCRIBE_ASR_URL" ] || echo "make run: HYSCRIBE_ASR_URL is not set: every job will end failed (no speech engine configured). Run 'make engine' and export what it prints, then 'make run' again (README, Quick start)."
	@HYSCRIBE_WEBHOOK_ALLOW_PRIVATE=$${HYSCRIBE_WEBHOOK_ALLOW_PRIVATE:-true} \
	HYSCRIBE_DATA_DIR=$${HYSCRIBE_DATA_DIR:-$(DATA)} \
	$(RUN_BIN) serve

# The speech engine `make engine` starts: speaches (deploy/compose.yaml), on
# the host's ENGINE_PORT, with ENGINE_MODEL: a small model, quick on a
# laptop's CPU; large-v3 (what deploy/ runs) transcribes Armenian better and
# is several times slower on a CPU: make engine ENGINE_MODEL=Systran/faster-whisper-large-v3
ENGINE_MODEL ?= Systran/faster-whisper-small
ENGINE_PORT ?= 8000
ENGINE_URL := http://127.0.0.1:$(ENGINE_PORT)
# compose checks every variable of the file, though speaches reads none of
# these: placeholders for what `make up` requires (real values win).
ENGINE_COMPOSE := POSTGRES_PASSWORD=$${POSTGRES_PASSWORD:-unused-by-speaches} CLICKHOUSE_PASSWORD=$${CLICKHOUSE_PASSWORD:-unused-by-speaches} \
	MINIO_ROOT_USER=$${MINIO_ROOT_USER:-unused-by-speaches} MINIO_ROOT_PASSWORD=$${MINIO_ROOT_PASSWORD:-unused-by-speaches} \
	HYSCRIBE_UPLOAD_SECRET=$${HYSCRIBE_UPLOAD_SECRET:-unused-by-speaches} \
	HYSCRIBE_ASR_MODEL=$(ENGINE_MODEL) SPEACHES_PORT=$(ENGINE_PORT) docker compose -f deploy/compose.yaml

## engine: a speech engine for make run: speaches from deploy/compose.yaml on 127.0.0.1:8000 with its model downloaded; needs Docker
engine:
	@docker compose version >/dev/null 2>&1 || { \
		echo "make engine: needs Docker with the compose plugin (docker compose); none here." >&2; \
		echo "Any engine with the OpenAI POST /v1/audio/transcriptions API works instead, e.g. a whisper.cpp server:" >&2; \
		echo "  whisper-server -m ggml-large-v3.bin --port 8081" >&2; \
		echo "  export HYSCRIBE_ASR_URL=http://127.0.0.1:8081 HYSCRIBE_ASR_PROFILE=whispercpp" >&2; \
		echo "(README, Speech engines, lists the engines and their settings.)" >&2; \
		exit 1; }
	@echo "make engine: starting speaches and downloading $(ENGINE_MODEL) into its volume (once; a few minutes for large models)..."
	$(ENGINE_COMPOSE) up -d --wait speaches
	@echo "make engine: asking speaches to install $(ENGINE_MODEL) (POST /v1/models/$(ENGINE_MODEL): 200 downloaded, 201 already there)..."
	curl -fsS -X POST "$(ENGINE_URL)/v1/models/$(ENGINE_MODEL)" >/dev/null
	@curl -fsS "$(ENGINE_URL)/v1/models/$(ENGINE_MODEL)" >/dev/null || { echo "make engine: speaches does not have $(ENGINE_MODEL) installed (GET /v1/models/$(ENGINE_MODEL))" >&2; exit 1; }
	@echo
	@echo "speaches answers at $(ENGINE_URL)/v1 with $(ENGINE_MODEL). In the shell where you run make run:"
	@echo "  export HYSCRIBE_ASR_URL=$(ENGINE_URL)/v1 HYSCRIBE_ASR_MODEL=$(ENGINE_MODEL) HYSCRIBE_ASR_PROFILE=speaches"
	@echo "Stop it with: docker compose -f deploy/compose.yaml stop speaches"

## build: the one binary, ./hyscribe, stamped with its version and commit as the Dockerfile's
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT ?= $(shell git rev-parse HEAD 2>/dev/null)
build:
	$(GO) build -trimpath -ldflags="-X github.com/hyscribe/hyscribe/cmd/hyscribe/cli.version=$(VERSION) -X github.com/hyscribe/hyscribe/cmd/hyscribe/cli.commit=$(COMMIT)" -o hyscribe ./cmd/hyscribe

## deps: install and start what the tests need on a fresh machine (kcat, Postgres, MinIO binary, promtool, kubeconform, kube-score)
deps:
	bash .ci/deps.sh

## test: after installing what the tests need and lint: the fast tier (test-short), then the full
## tier (every test, with the race detector: browser, whole-service, kill and soak tests), the
## client module on the oldest Go it claims, and the fuzz targets
test: deps lint
	@echo "test: the fast tier (go test -short)"
	$(SHORT_TIER)
	@echo "test: the full tier (every test, with the race detector)"
	$(GO) test -race -count=1 -timeout 30m $(PKGS)
	@# The Go client is its own module (go ./... stops at it): its tests, then
	@# it and an integrator's module requiring it, on the oldest Go it claims.
	cd client && $(GO) test -race -count=1 ./...
	cd client && GOTOOLCHAIN=local $(GO_OLDEST) vet ./... && GOTOOLCHAIN=local $(GO_OLDEST) test -count=1 ./...
	cd client/compat && GOTOOLCHAIN=local $(GO_OLDEST) vet ./... && GOTOOLCHAIN=local $(GO_OLDEST) test -count=1 ./...
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

## test-short: the fast tier: every test but the browser, whole-service, kill and soak ones, within
## 5 minutes on 2 cores; Postgres and ClickHouse tests use the servers make test starts, or start
## their own (needs no make deps where Postgres and ClickHouse are installed)
SHORT_TIER = $(GO) test -short -count=1 -timeout 10m $(PKGS)
test-short:
	HYSCRIBE_TEST_DATABASE_URL= CLICKHOUSE_TEST_DSN= $(SHORT_TIER)

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

## bench: Go benchmarks of the hot paths (Postgres ones, the ClickHouse sink in rows/s, a two-hour
## stereo call through the transcribe stage in flat memory), then the
## API and pipeline under load (bench/run.sh: wrk, real processes); prints figures and
## rewrites its section of docs/performance.md; then time to transcript against a stand-in GPU
## engine (bench/engine.sh: CAPACITY, RTF; issue 28's three figures); then the store's growth
## (bench/growth: 10,000 against 1,000,000 jobs on Postgres, 10,000 against 300,000 on SQLite;
## the seeded stores are kept and reused, GROWTH_FLAGS=-drop removes them)
GROWTH_FLAGS ?=
bench: deps
	$(GO) test -p 1 -timeout 60m -run '^$$' -bench . -benchmem ./domain/... ./adapters/... ./app/...
	bash bench/run.sh
	bash bench/engine.sh
	$(GO) run ./bench/growth -pg "$$HYSCRIBE_TEST_DATABASE_URL" -out docs/performance.md $(GROWTH_FLAGS)

## lint: vet, golangci-lint (.golangci.yml), gofmt and the dependency rule (domain and ports import no adapter or framework)
# golangci-lint runs staticcheck, errcheck, gosec, bodyclose, sqlclosecheck,
# govet, ineffassign, unused and depguard; .ci/golangci-lint.sh builds the
# pinned version from the Go module proxy into a cache outside the tree when
# missing (.ci/deps.sh too).
GOLANGCI_LINT ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/hyscribe/bin/golangci-lint
lint:
	bash .ci/golangci-lint.sh
	$(GO) vet $(PKGS)
	$(GOLANGCI_LINT) run $(PKGS)
	cd client && $(GO) vet ./... && $(GOLANGCI_LINT) run ./...
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

## generate: the Go types of the API's bodies and webhook events (domain/wire_gen.go,
## client/wire_gen.go) from adapters/httpapi/openapi.json (docs/architecture.md, Wire types)
generate:
	$(GO) generate ./...

fmt:
	gofmt -w $$(git ls-files '*.go')

clean:
	rm -rf hyscribe $(RUN_BIN) $(DATA)
