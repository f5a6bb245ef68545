package web

// scoringMessages are the interface texts of "not scored" versus "scored
// 0", the history's "needs speaker names" filter and Analytics' per-agent
// figures (issue 36), kept apart so that parallel work on the pages merges
// cleanly; init adds them to messages.
var scoringMessages = map[string][2]string{
	"score.notscored":  {"Չգնահատված", "Not scored"},
	"score.unclear":    {"%d անորոշ", "%d unclear"},
	"score.notcounted": {"Անորոշ պատասխանը չի մտնում միավորի մեջ", "An unclear answer is left out of the score"},
	"score.needsnames": {"պետք են խոսնակների անունները", "needs speaker names"},

	"filter.needsnames": {"Միայն խոսնակների անուններ սպասողները", "Only calls that need speaker names"},

	"an.unclear.note":  {"«Անորոշ» պատասխանները չեն մտնում ոչ միավորների, ոչ անցման տոկոսների մեջ․ միայն անորոշ պատասխաններով զանգը չգնահատված է, ոչ թե 0։", "“Unclear” answers are left out of scores and pass rates: a call with only unclear answers is not scored, not scored 0."},
	"an.agents":        {"Ըստ օպերատորի", "Per agent"},
	"an.agents.note":   {"Օպերատորը այն խոսնակն է, որին ձայնագրության էջում տրվել է «Օպերատոր» դերը և անուն։", "The agent is the speaker given the Agent role and a name on the recording's page."},
	"an.agent":         {"Օպերատոր", "Agent"},
	"an.agent.unnamed": {"Անանուն օպերատոր", "Agent not named"},
	"an.calls":         {"Զանգեր", "Calls"},
	"an.needsnames":    {"Սպասում են անունների", "Need speaker names"},
	"an.agentpass":     {"Անցման տոկոսը ըստ հարցի", "Pass rate per question"},
	"an.scored.col":    {"Գնահատված զանգեր", "Scored calls"},
}

func init() {
	for k, v := range scoringMessages {
		if _, dup := messages[k]; dup {
			panic("web: message " + k + " is defined twice")
		}
		messages[k] = v
	}
}
