package web

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/adapters/analysis"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// Every failure code has its sentence in both languages, taking exactly
// the details the code names.
func TestEveryFailureCodeHasASentence(t *testing.T) {
	for _, code := range domain.FailureCodes() {
		m, ok := messages["fail."+code]
		if !ok || m[0] == "" || m[1] == "" {
			t.Errorf("no sentence for failure code %s", code)
			continue
		}
		if strings.Count(m[0], "%s") != strings.Count(m[1], "%s") {
			t.Errorf("fail.%s: the two languages take different details", code)
		}
	}
	for reason, want := range map[string]string{
		domain.TooLong(5*3600+120, 4*time.Hour).Error(): "Ձայնագրությունը 5 ժ 2 ր է՝ ավելի երկար, քան թույլատրելի առավելագույնը՝ 4 ժ։",
		domain.OverBalance(9, 2.5).Error():              "Ձայնագրությունը 9 վ է, իսկ հաշվին մնացել է 2.5 վ։",
		domain.UploadTooLarge("1000-byte"):              "Վերբեռնված ֆայլը մեծ է 1000 բայթ սահմանից։",
		domain.WrongChannels("stereo", 1).Error():       "Սպասվում էր ստերեո ձայնագրություն, գտնվեց 1 ալիք։",
		"an English sentence nobody classified":         "Ձայնագրությունը հնարավոր չեղավ մշակել։",
	} {
		if got := failureText(LangHy, reason); got != want {
			t.Errorf("%q in Armenian: %q, want %q", reason, got, want)
		}
		if got := failureText(LangEn, reason); got != reason {
			t.Errorf("%q in English: %q, want the API's sentence", reason, got)
		}
	}
}

// The analysers' own reasons for an unclear answer, and the reason of a
// question whose role nobody has, read in Armenian on Armenian pages.
func TestAnswerReasonsInThePagesLanguage(t *testing.T) {
	res, err := analysis.Analyzer{}.Analyze(context.Background(), ports.AnalysisInput{Type: domain.TypeSingleVoice, Transcription: "բարև"},
		[]domain.Question{{ID: "a", Text: "?"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, reason := range []string{res["a"].Reason, domain.RoleUnknownReason(domain.SpeakerAgent), domain.RoleUnknownReason(domain.SpeakerCustomer),
		"the chat model did not answer this question", domain.ReasonApproximate} {
		got := answerReason(LangHy, reason)
		if got == reason || strings.ContainsAny(got, "abcdefghijklmnopqrstuvwxyz") {
			t.Errorf("%q on an Armenian page reads %q", reason, got)
		}
		if en := answerReason(LangEn, reason); en == "" {
			t.Errorf("%q on an English page is empty", reason)
		}
	}
}

func TestSpeakerLabels(t *testing.T) {
	roles := map[string]domain.SpeakerName{"1": {Role: domain.SpeakerAgent, Name: "Անի"}, "2": {Role: domain.SpeakerCustomer}}
	for _, c := range []struct {
		l    Lang
		sp   string
		want string
	}{
		{LangHy, "1", "Խոսնակ 1 · Օպերատոր (Անի)"},
		{LangEn, "Խոսնակ 2", "Speaker 2 · Customer"},
		{LangEn, "3", "Speaker 3"},
		{LangHy, "", ""},
	} {
		if got := speakerWho(c.l, roles, c.sp); got != c.want {
			t.Errorf("speakerWho(%s, %q) = %q, want %q", c.l, c.sp, got, c.want)
		}
	}
}
