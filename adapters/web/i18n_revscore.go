package web

// revscoreMessages are the history's texts of a reviewed call's score
// (issue 36): its row shows the reviewed score, marked. Kept apart from
// messages so that parallel work on the pages merges cleanly; init adds
// them to messages.
var revscoreMessages = map[string][2]string{
	"list.reviewed":       {"վերանայված", "reviewed"},
	"list.reviewed.title": {"Վերանայված միավոր․ զանգը վերանայել է վերլուծաբանը", "Reviewed score: an analyst reviewed the call"},
}

func init() {
	for k, v := range revscoreMessages {
		if _, dup := messages[k]; dup {
			panic("web: message " + k + " is defined twice")
		}
		messages[k] = v
	}
}
