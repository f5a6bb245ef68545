package web

// qaMessages are the interface texts of the QA features (issue 27: the
// call's score, the account's time zone, speaker roles, failure codes),
// kept apart from messages so that parallel work on the pages merges
// cleanly; init adds them to messages, where every lookup and the
// translation test find them.
var qaMessages = map[string][2]string{
	"one.total":     {"Զանգի միավորը", "Call score"},
	"one.total.how": {"(«այո» պատասխաններ / հարցեր · միավորների կշռված միջինը)", "(questions answered yes / questions · weighted mean of the scores)"},
}

func init() {
	for k, v := range qaMessages {
		if _, dup := messages[k]; dup {
			panic("web: message " + k + " is defined twice")
		}
		messages[k] = v
	}
}
