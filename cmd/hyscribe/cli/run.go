// Package cli is the hyscribe command: `serve`, `api`, `worker` and the
// operator's provisioning commands. Run is main's whole body, so tests run the
// real command in-process.
package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// usage is the command's help; the stages a worker can run are the names
// of app.Pipeline.
var usage = strings.ReplaceAll(usageText, "{stages}", strings.Join(app.StageNames(), ","))

const usageText = `hyscribe — Armenian transcription service

usage:
  hyscribe serve                       everything in one process (embedded defaults)
  hyscribe api                         the HTTP API and the outbox relay only
  hyscribe worker --stages a,b,...     pipeline stages only ({stages})
  hyscribe kafka                       the embedded Kafka broker and nothing else, for api and
                          worker processes on one machine (KAFKA_BROKERS=its address): listens on
                          HYSCRIBE_KAFKA_EMBEDDED_ADDR (127.0.0.1:9092), keeps its log in
                          HYSCRIBE_DATA_DIR/kafka, creates topics with HYSCRIBE_KAFKA_PARTITIONS
                          partitions; joins no consumer group; stops on SIGTERM or Ctrl-C.
                          Development and tests only, like serve's: one node, no replication
  hyscribe account create --name N --plan business|free --seconds S
  hyscribe account update --account ID [--name N] [--plan P] [--seconds S]
                          [--webhook-url U] [--webhook-secret S | --generate-webhook-secret]
                          [--analysis-webhook-url U] [--notify-failures true|false]
                          [--retention-days N]  (delete jobs older than N days; 0 keeps them)
                          [--time-zone Z] [--agent-channel left|right|""]  (pages' days; stereo agent)
  hyscribe account key --account ID    issue another API key
  hyscribe transcribe FILE --type single_voice|phone_call [--metadata JSON]
                          [--checklist ID] [--format text|txt|srt|vtt|json]
                          a client of a running service: HYSCRIBE_URL, HYSCRIBE_API_KEY
  hyscribe checklist create --account ID --file F.json
  hyscribe checklist update --account ID --checklist C --file F.json   (a new version)
  hyscribe checklist list --account ID
  hyscribe checklist show --account ID --checklist C [--version N]
  hyscribe checklist archive --account ID --checklist C
  hyscribe migrate                     bring the database schema up to date and exit
  hyscribe user create --account ID --email E --password-file F [--role owner|analyst|member]
                          (F holds the password on its first line; /dev/stdin works)
  hyscribe user invite --account ID --email E [--role owner|analyst|member]
                          prints a one-time link to /app/invite/… (valid 7 days)
  hyscribe user reset-link --email E
                          prints a one-time password reset link to /app/reset/… (valid 24 hours)
  hyscribe report checklist --account ID --checklist C --from YYYY-MM-DD --to YYYY-MM-DD
                          [--tz Z] [--json]  (ClickHouse analytics; needs CLICKHOUSE_DSN)
                          --to is exclusive: the days from --from up to but not including --to,
                          midnight to midnight in --tz (default UTC); --from 2026-11-01
                          --to 2026-11-02 is the 1st alone; --to must be after --from
  hyscribe report reviews --account ID --checklist C --from YYYY-MM-DD --to YYYY-MM-DD
                          [--tz Z] [--json]  the machine against its reviewers (ClickHouse):
                          agreement per question, machine and reviewed scores; days as above
  hyscribe job show --doc ID           a job's states with times, its events and webhook deliveries
  hyscribe version                     the version, commit and Go version (also --version)
  hyscribe probe URL                   GET URL (e.g. http://127.0.0.1:8080/readyz); exit 0 on 200, else 1
                          (a container healthcheck where the image has no shell or curl)

Every command prints its own help with -h or --help. Commands that read or
change accounts, checklists, people and jobs say which store they use, and
refuse to make a new SQLite store unless given --create-store.

Configuration comes from the environment; see the README.
`

// Run executes one hyscribe command.
func Run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) (err error) {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return usageErrorf("no command given")
	}
	switch {
	case args[0] == "help" || args[0] == "-h" || args[0] == "--help":
		fmt.Fprint(stdout, usage)
		return nil
	case args[0] == "--version":
		return versionCmd(stdout)
	case !isKnownCommand(args[0]):
		fmt.Fprint(stderr, usage)
		return usageErrorf("unknown command %q", args[0])
	case wantsHelp(args[1:]):
		fmt.Fprint(stdout, helpFor(args))
		if slices.Contains([]string{"serve", "api", "worker"}, args[0]) {
			fmt.Fprint(stdout, variablesHelp())
		}
		return nil
	case args[0] == "version":
		return versionCmd(stdout)
	}
	defer func() {
		if ExitCode(err) == 2 {
			fmt.Fprint(stderr, helpFor(args))
		}
	}()
	if args[0] == "transcribe" { // a client: none of the service's configuration
		return transcribeCmd(ctx, args[1:], getenv, stdout, stderr)
	}
	if args[0] == "probe" {
		return probeCmd(ctx, args[1:], stdout)
	}
	cfg, err := LoadConfig(getenv)
	if err != nil {
		return err
	}
	switch args[0] {
	case "serve":
		if err := noArgs("serve", args[1:]); err != nil {
			return err
		}
		return serve(ctx, cfg, RoleAPI|RoleWorker, AllStages, stderr)
	case "api":
		if err := noArgs("api", args[1:]); err != nil {
			return err
		}
		return serve(ctx, cfg, RoleAPI, nil, stderr)
	case "kafka":
		if err := noArgs("kafka", args[1:]); err != nil {
			return err
		}
		return kafkaCmd(ctx, cfg, stderr)
	case "worker":
		fs := flag.NewFlagSet("worker", flag.ContinueOnError)
		fs.SetOutput(stderr)
		stages := fs.String("stages", strings.Join(AllStages, ","), "comma-separated stages to run")
		if err := parseFlags(fs, args[1:]); err != nil {
			return err
		}
		list, err := parseStages(*stages)
		if err != nil {
			return err
		}
		return serve(ctx, cfg, RoleWorker, list, stderr)
	case "account":
		return accountCmd(ctx, cfg, args[1:], stdout, stderr)
	case "checklist":
		return checklistCmd(ctx, cfg, args[1:], stdout, stderr)
	case "user":
		return userCmd(ctx, cfg, args[1:], stdout, stderr)
	case "migrate":
		if err := noArgs("migrate", args[1:]); err != nil {
			return err
		}
		return migrateCmd(ctx, cfg, stdout)
	case "report":
		return reportCmd(ctx, cfg, args[1:], stdout, stderr)
	case "job":
		return jobCmd(ctx, cfg, args[1:], stdout, stderr)
	}
	return nil
}

func serve(ctx context.Context, cfg Config, roles Role, stages []string, stderr io.Writer) error {
	warnings, err := cfg.checkStart(roles)
	if err != nil {
		return err
	}
	if err := cfg.checkDecoder(ctx, roles, stages); err != nil {
		return err
	}
	for _, w := range warnings {
		newLogger(cfg, stderr).Warn(w)
	}
	svc, err := Start(ctx, cfg, roles, stages, stderr)
	if err != nil {
		return err
	}
	if cfg.PprofAddr != "" {
		_, stop, err := servePprof(cfg.PprofAddr, svc.log)
		if err != nil {
			_ = svc.Stop()
			return err
		}
		defer stop()
	}
	<-ctx.Done()
	return svc.Stop()
}

// kafkaCmd runs the embedded broker alone until ctx ends: the broker of a
// split topology (api and worker processes) on one machine. A `serve` in
// that role would also run every stage and join the pipeline's consumer
// groups, taking partitions whose jobs then wait on it.
func kafkaCmd(ctx context.Context, cfg Config, stderr io.Writer) error {
	log := newLogger(cfg, stderr)
	e, err := startEmbeddedKafka(cfg, log)
	if err != nil {
		return err
	}
	<-ctx.Done()
	e.Close() // writes the cluster's state to its data directory
	log.Info("embedded kafka stopped")
	return nil
}

// servePprof serves Go's profiles (/debug/pprof/) on addr, for measuring a
// running process (docs/performance.md). Off unless HYSCRIBE_PPROF_ADDR is
// set: the profiles show the process's internals, so the address belongs on
// loopback or an operators' network only.
func servePprof(addr string, log *slog.Logger) (string, func(), error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", nil, fmt.Errorf("HYSCRIBE_PPROF_ADDR %s: %w", addr, err)
	}
	mux := http.NewServeMux()
	handlePprof(mux)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	log.Info("pprof listening", "addr", ln.Addr().String())
	return ln.Addr().String(), func() { _ = srv.Close() }, nil
}

// handlePprof serves Go's profiles under /debug/pprof/ on mux.
func handlePprof(mux *http.ServeMux) {
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
}

// migrateCmd applies the store's migrations and exits, so a deployment can
// migrate once before it starts its processes. (Every process also migrates
// as it opens the store; concurrent starts migrate once.) It prints what it
// applied: the migrations' names, none when the schema was up to date.
func migrateCmd(ctx context.Context, cfg Config, stdout io.Writer) error {
	store, _, err := openStore(ctx, cfg)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	var applied []string
	version := 0
	if m, ok := store.(interface{ Migrations() ([]string, int) }); ok {
		applied, version = m.Migrations()
	}
	if err := store.Close(); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	kind := "sqlite"
	if cfg.DatabaseURL != "" {
		kind = "postgres"
	}
	if applied == nil {
		applied = []string{}
	}
	msg := fmt.Sprintf("applied %d migration(s); schema at version %d", len(applied), version)
	if len(applied) == 0 {
		msg = fmt.Sprintf("nothing to apply; schema already at version %d", version)
	}
	return writeJSON(stdout, map[string]any{"store": kind, "schema": "up to date", "version": version, "applied": applied, "message": msg})
}

func accountCmd(ctx context.Context, cfg Config, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || !slices.Contains([]string{"create", "update", "key"}, args[0]) {
		return subcommandError("account", args, "create", "update", "key")
	}
	fs := flag.NewFlagSet("account "+args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	id := fs.String("account", "", "account ID")
	name := fs.String("name", "", "account name")
	plan := fs.String("plan", "", "business or free")
	seconds := fs.String("seconds", "", "audio seconds remaining")
	webhookURL := fs.String("webhook-url", "", "receiver URL for events (empty to clear)")
	webhookSecret := fs.String("webhook-secret", "", "value echoed in every event's secret field")
	analysisURL := fs.String("analysis-webhook-url", "", "receiver URL for analysis_ready (empty: webhook-url)")
	fs.String("notify-failures", "", "send transcript_failed events: true or false")
	retention := fs.Int("retention-days", 0, "delete jobs older than this many days; 0 keeps them forever")
	fs.String("time-zone", "", "IANA time zone of the account's pages, exports and reports (empty: the deployment's)")
	fs.String("agent-channel", "", "stereo channel the account's agents are on: left, right or empty")
	generate := fs.Bool("generate-webhook-secret", false, "give the account a new whsec_ secret, printed once")
	create := createStoreFlag(fs)
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	if *generate && flagSet(fs, "webhook-secret") {
		return usageErrorf("account %s: --generate-webhook-secret and --webhook-secret %q exclude each other", args[0], *webhookSecret)
	}
	if *generate && args[0] != "update" {
		return usageErrorf("account %s: --generate-webhook-secret belongs to account update", args[0])
	}
	store, err := openProvisioningStore(ctx, cfg, stderr, *create)
	if err != nil {
		return err
	}
	defer store.Close()
	switch args[0] {
	case "create":
		secs, err := strconv.ParseFloat(*seconds, 64)
		if *seconds == "" {
			secs, err = 0, nil
		}
		if err != nil {
			return usageErrorf("account create: --seconds must be a number, not %q", *seconds)
		}
		a, key, err := app.NewCreateAccount(store, ports.SystemClock{}).Handle(ctx, *name, domain.Plan(*plan), secs)
		if err != nil {
			return err
		}
		return writeJSON(stdout, map[string]string{"accountId": string(a.ID), "apiKey": key})
	case "update":
		if *id == "" {
			return errors.New("account update: --account is required")
		}
		var c app.AccountChanges
		var parseErr error
		fs.Visit(func(f *flag.Flag) {
			v := f.Value.String()
			switch f.Name {
			case "name":
				c.Name = &v
			case "plan":
				p := domain.Plan(v)
				c.Plan = &p
			case "seconds":
				s, err := strconv.ParseFloat(v, 64)
				if err != nil {
					parseErr = usageErrorf("account update: --seconds must be a number, not %q", v)
				}
				c.Seconds = &s
			case "webhook-url":
				c.WebhookURL = webhookURL
			case "webhook-secret":
				c.WebhookSecret = webhookSecret
			case "analysis-webhook-url":
				c.AnalysisWebhookURL = analysisURL
			case "notify-failures":
				b, err := strconv.ParseBool(v)
				if err != nil {
					parseErr = usageErrorf("account update: --notify-failures must be true or false, not %q", v)
				}
				c.NotifyFailures = &b
			case "time-zone":
				c.TimeZone = &v
			case "agent-channel":
				c.AgentChannel = &v
			}
		})
		if parseErr != nil {
			return parseErr
		}
		days, setDays := retentionFlag(fs, *retention)
		if err := domain.ValidRetentionDays(days); setDays && err != nil {
			return err // before anything else changes
		}
		a, err := app.NewUpdateAccount(store).Handle(ctx, domain.AccountID(*id), domain.RoleOwner, c)
		if err != nil {
			return err
		}
		out := accountJSON(a)
		if *generate {
			secret, err := app.NewGenerateWebhookSecret(store).Handle(ctx, a.ID, domain.RoleOwner)
			if err != nil {
				return err
			}
			out["webhookSecret"], out["webhookSecretSet"] = secret, true // shown this once
		}
		if setDays {
			if err := app.NewSetRetention(store).Handle(ctx, a.ID, domain.RoleOwner, days); err != nil {
				return err
			}
			out["retentionDays"] = days
		}
		return writeJSON(stdout, out)
	case "key":
		if *id == "" {
			return errors.New("account key: --account is required")
		}
		if _, err := store.GetAccount(ctx, domain.AccountID(*id)); err != nil {
			return fmt.Errorf("account %q: %w", *id, err)
		}
		raw, _, err := app.NewCreateAPIKey(store, ports.SystemClock{}).Handle(ctx, domain.AccountID(*id), domain.RoleOwner)
		if err != nil {
			return err
		}
		return writeJSON(stdout, map[string]string{"accountId": *id, "apiKey": raw})
	}
	return subcommandError("account", args, "create", "update", "key")
}

func accountJSON(a domain.Account) map[string]any {
	return map[string]any{
		"accountId": a.ID, "name": a.Name, "plan": a.Plan, "secondsRemaining": a.SecondsRemaining(),
		"webhookURL": a.WebhookURL, "webhookSecretSet": a.WebhookSecret != "",
		"analysisWebhookURL": a.AnalysisWebhookURL, "notifyFailures": a.NotifyFailures,
		"timeZone": a.TimeZone, "agentChannel": a.AgentChannel,
	}
}

func checklistCmd(ctx context.Context, cfg Config, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || !slices.Contains([]string{"create", "list", "show", "update", "archive"}, args[0]) {
		return subcommandError("checklist", args, "create", "list", "show", "update", "archive")
	}
	sub := args[0]
	fs := flag.NewFlagSet("checklist "+sub, flag.ContinueOnError)
	fs.SetOutput(stderr)
	account := fs.String("account", "", "account ID")
	id := fs.String("checklist", "", "checklist ID")
	file := fs.String("file", "", "checklist JSON file")
	version := fs.Int("version", 0, "version to show (default: the latest)")
	create := createStoreFlag(fs)
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	if *account == "" {
		return fmt.Errorf("checklist %s: --account is required", sub)
	}
	needs := func(what ...string) error {
		for _, w := range what {
			if (w == "checklist" && *id == "") || (w == "file" && *file == "") {
				return fmt.Errorf("checklist %s: --%s is required", sub, w)
			}
		}
		return nil
	}
	var def []byte
	switch sub {
	case "create", "update":
		if err := needs("file"); err != nil {
			return err
		}
		var err error
		if def, err = os.ReadFile(*file); err != nil {
			return fmt.Errorf("checklist %s: %w", sub, err)
		}
	case "list":
	case "show", "archive":
	default:
		return subcommandError("checklist", args, "create", "list", "show", "update", "archive")
	}
	if sub == "update" || sub == "show" || sub == "archive" {
		if err := needs("checklist"); err != nil {
			return err
		}
	}
	store, err := openProvisioningStore(ctx, cfg, stderr, *create)
	if err != nil {
		return err
	}
	defer store.Close()
	acct := domain.AccountID(*account)
	switch sub {
	case "create":
		c, err := app.NewCreateChecklist(store, store, ports.SystemClock{}).Handle(ctx, acct, domain.RoleOwner, def)
		if err != nil {
			return err
		}
		return writeJSON(stdout, map[string]string{"checklistId": c.ID}) // the exact output of docs/architecture.md, Operating contract
	case "update":
		c, err := app.NewUpdateChecklist(store, ports.SystemClock{}).Handle(ctx, acct, domain.RoleOwner, *id, def)
		if err != nil {
			return err
		}
		return writeJSON(stdout, map[string]any{"checklistId": c.ID, "version": c.Version})
	case "list":
		cs, err := app.NewListChecklists(store, store).Handle(ctx, acct)
		if err != nil {
			return err
		}
		out := make([]map[string]any, 0, len(cs))
		for _, c := range cs {
			out = append(out, map[string]any{"checklistId": c.ID, "name": c.Name, "version": c.Version,
				"questions": len(c.Questions), "archived": c.Archived, "updatedAt": c.CreatedAt})
		}
		return writeJSON(stdout, out)
	case "show":
		c, err := app.NewShowChecklist(store).Handle(ctx, acct, domain.RoleOwner, *id, *version)
		if err != nil {
			return err
		}
		return writeJSON(stdout, checklistJSON(c))
	case "archive":
		if err := app.NewArchiveChecklist(store).Handle(ctx, acct, domain.RoleOwner, *id); err != nil {
			return err
		}
		return writeJSON(stdout, map[string]any{"checklistId": *id, "archived": true})
	}
	return nil
}

func checklistJSON(c domain.Checklist) map[string]any {
	return map[string]any{"checklistId": c.ID, "name": c.Name, "version": c.Version, "archived": c.Archived,
		"createdAt": c.CreatedAt, "questions": c.Questions}
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	return enc.Encode(v)
}
