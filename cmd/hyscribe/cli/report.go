package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/hyscribe/hyscribe/adapters/clickhouse"
	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// reportCmd prints a checklist's analytics from ClickHouse. "checklist":
// per-question pass rates and average scores, per-day volumes (--json: the
// domain.ChecklistReport). "reviews": the machine against the people who
// reviewed it — agreement per question, machine and reviewed scores
// (--json: the domain.ReviewReport).
func reportCmd(ctx context.Context, cfg Config, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || (args[0] != "checklist" && args[0] != "reviews") {
		return subcommandError("report", args, "checklist", "reviews")
	}
	kind := args[0]
	fs := flag.NewFlagSet("report "+kind, flag.ContinueOnError)
	fs.SetOutput(stderr)
	account := fs.String("account", "", "account ID")
	id := fs.String("checklist", "", "checklist ID")
	fromS := fs.String("from", "", "first day, YYYY-MM-DD (in --tz; inclusive)")
	toS := fs.String("to", "", "the day after the last, YYYY-MM-DD (in --tz; exclusive: the report ends at its midnight)")
	tz := fs.String("tz", "UTC", "IANA time zone the days are counted in (the web application uses the account's)")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	if *account == "" || *id == "" || *fromS == "" || *toS == "" {
		return fmt.Errorf("report %s: --account, --checklist, --from and --to are required", kind)
	}
	loc, err := app.LoadZone(*tz)
	if err != nil {
		return fmt.Errorf("--tz must be an IANA time zone such as Asia/Yerevan, not %q", *tz)
	}
	from, err := time.ParseInLocation(time.DateOnly, *fromS, loc)
	if err != nil {
		return fmt.Errorf("--from must be YYYY-MM-DD, not %q", *fromS)
	}
	to, err := time.ParseInLocation(time.DateOnly, *toS, loc)
	if err != nil {
		return fmt.Errorf("--to must be YYYY-MM-DD, not %q", *toS)
	}
	if cfg.ClickHouseDSN == "" {
		return fmt.Errorf("report %s: CLICKHOUSE_DSN is not set: the reports read ClickHouse", kind)
	}
	store, err := clickhouse.Open(ctx, cfg.ClickHouseDSN)
	if err != nil {
		return err
	}
	defer store.Close()
	if kind == "reviews" {
		rep, err := store.ReviewReport(ctx, domain.AccountID(*account), *id, from, to)
		if err != nil {
			return err
		}
		if *asJSON {
			return writeJSON(stdout, rep)
		}
		return printReviewReport(stdout, rep)
	}
	var analytics ports.ChecklistAnalytics = store
	rep, err := analytics.ChecklistReport(ctx, domain.AccountID(*account), *id, from, to)
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(stdout, rep)
	}
	return printReport(stdout, rep)
}

func printReport(w io.Writer, rep domain.ChecklistReport) error {
	fmt.Fprintf(w, "checklist %s of account %s, %s to %s (exclusive)\n\n", rep.ChecklistID, rep.AccountID,
		rep.From.Format(time.DateOnly), rep.To.Format(time.DateOnly))
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "question\tanswers\tyes\tno\tunclear\tpass rate\tavg score\ttext")
	for _, q := range rep.Questions {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%.1f%%\t%.2f\t%s\n", q.QuestionID, q.Answers, q.Yes, q.No, q.Unclear, q.PassRate*100, q.AvgScore, q.Question)
	}
	fmt.Fprintln(tw)
	fmt.Fprintln(tw, "day\tanalyses\tfailed\tscored\tavg score")
	for _, d := range rep.Days {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%.2f\n", d.Day, d.Analyses, d.Failed, d.Scored, d.AvgScore)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	// The rule every page follows (domain.Counts), said where the numbers are.
	_, err := fmt.Fprintln(w, "\npass rate = yes / (yes + no); unclear answers are left out of pass rates and scores,\n"+
		"a call with only unclear answers is not scored; days are the calls' own days")
	return err
}

func printReviewReport(w io.Writer, rep domain.ReviewReport) error {
	fmt.Fprintf(w, "reviews of checklist %s of account %s, %s to %s (exclusive)\n", rep.ChecklistID, rep.AccountID,
		rep.From.Format(time.DateOnly), rep.To.Format(time.DateOnly))
	fmt.Fprintf(w, "reviewed calls: %d (machine score %.2f, reviewed score %.2f)\n\n", rep.Reviewed, rep.MachineScore, rep.ReviewedScore)
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "question\treviewed\tagreed\tagreement\toverridden\tmachine pass\treviewed pass\tmachine score\treviewed score\ttext")
	for _, q := range rep.Questions {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.1f%%\t%d\t%.1f%%\t%.1f%%\t%.2f\t%.2f\t%s\n", q.QuestionID, q.Reviewed, q.Agreed, q.Agreement*100, q.Overridden,
			q.MachinePassRate*100, q.ReviewedPassRate*100, q.MachineScore, q.ReviewedScore, q.Question)
	}
	return tw.Flush()
}
