package web

// qaMessages are the interface texts of the QA features (issue 27: the
// call's score, the account's time zone, speaker roles, failure codes),
// kept apart from messages so that parallel work on the pages merges
// cleanly; init adds them to messages, where every lookup and the
// translation test find them.
var qaMessages = map[string][2]string{
	"one.total":     {"Զանգի միավորը", "Call score"},
	"one.total.how": {"(«այո» պատասխաններ / հարցեր · միավորների կշռված միջինը)", "(questions answered yes / questions · weighted mean of the scores)"},

	// Settings: the account's time zone and the agents' stereo channel.
	"set.calls":              {"Զանգեր և ժամային գոտի", "Calls and time zone"},
	"set.timezone":           {"Ժամային գոտի", "Time zone"},
	"set.timezone.note":      {"Բոլոր էջերում ժամերը, օրերով զտիչները, Վերլուծությունն ու Օգտագործումը հաշվվում են այս գոտու օրերով։", "Every page shows times in this zone; date filters, Analytics and Usage count its days."},
	"set.agentchannel":       {"Ստերեո զանգերում օպերատորի ալիքը", "The agent's channel in stereo calls"},
	"set.agentchannel.none":  {"Հայտնի չէ", "Not known"},
	"set.agentchannel.left":  {"Ձախ ալիք", "Left channel"},
	"set.agentchannel.right": {"Աջ ալիք", "Right channel"},
	"set.agentchannel.note":  {"Ստերեո զանգում այս ալիքի խոսնակը օպերատորն է, մյուսը՝ հաճախորդը․ միայն օպերատորին կամ հաճախորդին վերաբերող հարցերը կարդում են միայն նրա խոսքերը։", "In a stereo call the speaker on this channel is the agent and the other the customer: questions limited to the agent or the customer read only that person's words."},

	// A recording's speakers.
	"speaker.title":            {"Խոսնակներ", "Speakers"},
	"speaker.role":             {"Դեր", "Role"},
	"speaker.role.":            {"Հայտնի չէ", "Not known"},
	"speaker.role.agent":       {"Օպերատոր", "Agent"},
	"speaker.role.customer":    {"Հաճախորդ", "Customer"},
	"speaker.name":             {"Անուն (ըստ ցանկության)", "Name (optional)"},
	"speaker.channel.left":     {"Հաշվի կարգավորմամբ՝ ստերեո զանգի ձախ ալիքը օպերատորն է։", "By the account's setting the left channel of a stereo call is the agent."},
	"speaker.channel.right":    {"Հաշվի կարգավորմամբ՝ ստերեո զանգի աջ ալիքը օպերատորն է։", "By the account's setting the right channel of a stereo call is the agent."},
	"speaker.note":             {"Դերերը փոխելը չի վերավերլուծում այս զանգը (ստացողն արդեն ստացել է արդյունքը)․ այն կիրառվում է Նախադիտման մեջ։", "Changing the roles does not analyse this call again (its receiver already has the result); Preview uses them."},
	"speaker.unknown.agent":    {"Զանգում օպերատորը նշված չէ․ նշեք խոսնակներին ձայնագրության էջում։", "The call's agent is not identified: name the speakers on the recording's page."},
	"speaker.unknown.customer": {"Զանգում հաճախորդը նշված չէ․ նշեք խոսնակներին ձայնագրության էջում։", "The call's customer is not identified: name the speakers on the recording's page."},

	// Checklist questions limited to one speaker.
	"cl.q.role":          {"Ում խոսքերը", "Whose words"},
	"cl.q.role.":         {"Ամբողջ զանգը", "The whole call"},
	"cl.q.role.agent":    {"Միայն օպերատորը", "The agent only"},
	"cl.q.role.customer": {"Միայն հաճախորդը", "The customer only"},

	// Validation errors of these settings on Armenian pages.
	"invalid.invalid_time_zone":     {"Անհայտ ժամային գոտի։", "Unknown time zone."},
	"invalid.invalid_channel":       {"Ալիքը պետք է լինի ձախ, աջ կամ հայտնի չէ։", "The channel must be left, right or not known."},
	"invalid.not_a_call":            {"Խոսնակներին կարելի է նշել միայն հեռախոսազանգում։", "Only a phone call's speakers can be named."},
	"invalid.invalid_speaker":       {"Զանգն ունի միայն 1 և 2 խոսնակներ։", "A call has speakers 1 and 2 only."},
	"invalid.invalid_speaker_role":  {"Դերը պետք է լինի օպերատոր կամ հաճախորդ։", "The role must be agent or customer."},
	"invalid.speaker_name_too_long": {"Խոսնակի անունը՝ առավելագույնը 60 նիշ։", "A speaker's name is at most 60 characters."},
	"invalid.role_taken":            {"Երկու խոսնակ չեն կարող ունենալ նույն դերը։", "Two speakers cannot have the same role."},
}

func init() {
	for k, v := range qaMessages {
		if _, dup := messages[k]; dup {
			panic("web: message " + k + " is defined twice")
		}
		messages[k] = v
	}
}
