package web

// reviewMessages are the interface texts of the review of a call's
// analysis (issue 36), kept apart from messages so that parallel work on
// the pages merges cleanly; init adds them to messages.
var reviewMessages = map[string][2]string{
	"review.title":      {"Վերանայում", "Review"},
	"review.machine":    {"Մեքենայի պատասխան", "Machine answer"},
	"review.reviewed":   {"Վերանայված պատասխան", "Reviewed answer"},
	"review.yours":      {"Ձեր պատասխանը", "Your answer"},
	"review.reason":     {"Պատճառ", "Reason"},
	"review.reason.ph":  {"Պարտադիր է փոխելիս", "Required for a change"},
	"review.comment":    {"Մեկնաբանություն զանգի մասին", "Comment on the call"},
	"review.submit":     {"Նշել որպես վերանայված", "Mark reviewed"},
	"review.by":         {"Վերանայել է %s, %s", "Reviewed by %s on %s"},
	"review.stale":      {"Զանգը վերավերլուծվել է այս վերանայումից հետո․ դրա պատասխանները վերաբերում էին նախորդ արդյունքներին, և միավորը կրկին մեքենայինն է։ Վերանայեք զանգը կրկին։", "The call was analysed again after this review: its answers were given to the previous results, and the score is the machine's again. Review the call again."},
	"review.none":       {"Զանգը դեռ վերանայված չէ․ միավորը մեքենայինն է։", "The call is not reviewed yet: the score is the machine's."},
	"review.saved":      {"Վերանայումը պահպանված է։", "Review saved."},
	"review.score":      {"Վերանայված միավոր", "Reviewed score"},
	"review.machscore":  {"մեքենայինը՝", "machine:"},
	"review.owneronly":  {"Զանգերը կարող են վերանայել միայն հաշվի սեփականատերը և որակի վերլուծաբանները։", "Only the account's owner and QA analysts can review calls."},
	"review.overridden": {"փոխված", "changed"},
	"review.accepted":   {"ընդունված", "accepted"},
	"review.comment.by": {"Մեկնաբանություն", "Comment"},
	"review.note":       {"Ընդունեք կամ փոխեք յուրաքանչյուր պատասխանը․ փոխելիս գրեք պատճառը։ Միավորը հաշվվում է վերանայված պատասխաններից՝ նույն կանոնով, ինչ մեքենայինը։", "Accept or change each answer, with a reason for a change. The score is computed from the reviewed answers by the same rule as the machine's."},

	"invalid.analysis_failed":  {"Վերլուծությունը ձախողվել է․ վերանայելու պատասխաններ չկան։", "The analysis failed: there are no answers to review."},
	"invalid.comment_too_long": {"Մեկնաբանությունը՝ առավելագույնը 2000 նիշ։", "The comment is at most 2000 characters."},
	"invalid.unknown_question": {"Հարցը այս զանգի վերլուծության մեջ չէ։", "The question is not in this call's analysis."},
	"invalid.invalid_answer":   {"Պատասխանը պետք է լինի այո, ոչ կամ անորոշ։", "The answer must be yes, no or unclear."},
	"invalid.reason_too_long":  {"Պատճառը՝ առավելագույնը 500 նիշ։", "A reason is at most 500 characters."},
	"invalid.reason_required":  {"Պատասխանը փոխելիս գրեք պատճառը։ Ոչինչ չի պահպանվել։", "Write a reason for every answer you change. Nothing was saved."},
}

func init() {
	for k, v := range reviewMessages {
		if _, dup := messages[k]; dup {
			panic("web: message " + k + " is defined twice")
		}
		messages[k] = v
	}
}
