package web

import (
	"bytes"
	"encoding/csv"
	"strconv"
	"strings"
	"time"

	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/domain"
)

// scoredRecording is one row of scores.csv: a chosen recording and the
// name of its transcript in the ZIP ("" when it has none).
type scoredRecording struct {
	Rec  app.Recording
	File string
}

// scoresHead are scores.csv's fixed columns, in order. The first ten are
// where they were before issue 36 (scripts read them by position); what
// was "questions" is now "answered" (yes or no; domain.Score).
var scoresHead = []string{"docId", "file", "title", "created", "status", "checklist", "yes", "answered", "score", "transcript",
	"unclear", "needs speaker names", "link", "speaker 1 role", "speaker 1 name", "speaker 2 role", "speaker 2 name"}

// questionColumn is one checklist question's pair of columns: the machine's
// answer and, once the call was reviewed, the reviewed answer.
type questionColumn struct {
	checklist, id string
}

// scoresCSV writes scores.csv (UTF-8 with a BOM, so spreadsheets read the
// Armenian): one row per recording with its total under the one scoring
// rule (domain.ScoreOf: the score is empty when the call is not scored),
// its speakers' roles and names, and two columns per question of the
// checklists analysed — "<id>" (yes/no/unclear) and "<id> reviewed"
// (the reviewed answer; empty until the call is reviewed). A question's
// columns are named by its id alone when the export holds one checklist,
// else "<checklist name>: <id>".
//
// Identifiers and values the service writes itself (the docId, the link,
// times, statuses, counts, answers) are written exactly; free text that
// people or recordings chose (file names, titles, checklist names, speaker
// names, question ids) is guarded (guardCell).
func scoresCSV(rows []scoredRecording, zone *time.Location, publicURL string) []byte {
	var cols []questionColumn
	seen := map[questionColumn]bool{}
	names := map[string]string{}
	for _, r := range rows {
		a := r.Rec.Analysis
		if a == nil || a.Status != domain.AnalysisOK {
			continue
		}
		names[a.ChecklistID] = a.ChecklistName
		for _, q := range orderedResults(a, r.Rec.Order) {
			c := questionColumn{a.ChecklistID, q.ID}
			if !seen[c] {
				seen[c] = true
				cols = append(cols, c)
			}
		}
	}
	head := append([]string{}, scoresHead...)
	for _, c := range cols {
		name := c.id
		if len(names) > 1 {
			name = names[c.checklist] + ": " + c.id
		}
		head = append(head, guardCell(name), guardCell(name+" reviewed"))
	}
	var b bytes.Buffer
	b.WriteString("\ufeff")
	cw := csv.NewWriter(&b)
	_ = cw.Write(head)
	for _, r := range rows {
		_ = cw.Write(scoresRow(r, cols, zone, publicURL))
	}
	cw.Flush()
	return b.Bytes()
}

func scoresRow(r scoredRecording, cols []questionColumn, zone *time.Location, publicURL string) []string {
	j := r.Rec.Job
	row := []string{string(j.ID), guardCell(j.Filename), guardCell(j.Title), j.CreatedAt.In(zone).Format("2006-01-02 15:04:05"),
		string(j.Status), "", "", "", "", guardCell(r.File), "", "", domain.RecordingLink(publicURL, j.ID)}
	for _, sp := range []string{"1", "2"} {
		who := r.Rec.Roles[sp]
		if j.Type != domain.TypePhoneCall {
			who = domain.SpeakerName{}
		}
		row = append(row, string(who.Role), guardCell(who.Name))
	}
	answers := make([]string, 2*len(cols))
	if a := r.Rec.Analysis; a != nil && a.Status == domain.AnalysisOK {
		sc := r.Rec.Score // domain.ScoreOf: the score every page shows
		row[5], row[6], row[7], row[10] = guardCell(a.ChecklistName), strconv.Itoa(sc.Yes), strconv.Itoa(sc.Of), strconv.Itoa(sc.Unclear)
		if sc.Scored() {
			row[8] = strconv.FormatFloat(sc.Value, 'f', 2, 64)
		}
		if sc.NeedsNames {
			row[11] = "yes"
		}
		for i, c := range cols {
			if res, ok := a.Results[c.id]; ok && c.checklist == a.ChecklistID {
				answers[2*i] = res.Answer
				// The reviewed answer, while the call's review is current
				// (app.Recording.Reviewed: empty when never reviewed, or
				// analysed again since).
				if rv := r.Rec.Reviewed; rv != nil {
					answers[2*i+1] = rv.Results[c.id].Answer
				}
			}
		}
	}
	return append(row, answers...)
}

// guardCell keeps a spreadsheet from running a free-text cell as a
// formula: one starting with = + - @ or a tab or carriage return gets a
// leading apostrophe (OWASP's CSV injection advice). Identifiers are never
// guarded: an apostrophe would change them (a docId may start with "-"),
// and nobody outside the service chooses them.
func guardCell(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}
