package web

import (
	"fmt"
	"strings"

	"github.com/hyscribe/hyscribe/domain"
)

// Reasons the service writes in English for the API (a job's `error`, a
// refused upload, a failed analysis or delivery) are shown on Armenian
// pages as the sentence of their stable code (domain.JobFailure,
// AnalysisFailure, DeliveryFailure): "fail.<code>" in qaMessages, with the
// details the code names. English pages show the API's sentence itself,
// which has every detail.

// failureText is a job's failure or refused upload in the page's language.
func failureText(l Lang, reason string) string {
	if l == LangEn || reason == "" {
		return reason
	}
	return codeText(l, domain.JobFailure(reason))
}

// analysisFailureText is a failed analysis's reason in the page's language.
func analysisFailureText(l Lang, reason string) string {
	if l == LangEn || reason == "" {
		return reason
	}
	return codeText(l, domain.AnalysisFailure(reason))
}

// deliveryFailureText is a failed delivery's error in the page's language.
func deliveryFailureText(l Lang, reason string) string {
	if l == LangEn || reason == "" {
		return reason
	}
	return codeText(l, domain.DeliveryFailure(reason))
}

func codeText(l Lang, f domain.Failure) string {
	args := make([]any, len(f.Args))
	for i, a := range f.Args {
		args[i] = localUnits(l, a)
	}
	return fmt.Sprintf(text(l, "fail."+f.Code), args...)
}

// localUnits writes the units of a duration or a size ("1 h 2 min 3 s",
// "512 MiB") and the words the reasons' details use in the page's
// language.
func localUnits(l Lang, s string) string {
	if l == LangEn {
		return s
	}
	return hyUnits.Replace(s)
}

var hyUnits = strings.NewReplacer(
	" h", " ժ", " min", " ր", " s", " վ", " MiB", " ՄԲ", "-byte", " բայթ",
	"mono", "մոնո", "stereo", "ստերեո",
	"uploading", "վերբեռնում", "processing", "մշակում", "converting", "փոխարկում",
	"transcribe", "տեքստի վերածում", "process", "մշակում", "enrich", "ամփոփում", "analyze", "վերլուծություն", "notify", "ծանուցում",
)
