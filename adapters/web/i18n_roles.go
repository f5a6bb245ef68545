package web

// rolesMessages are the interface texts of the QA team's roles and the
// fixes of issue 36 items 7 and 8 (the API page's signature recipe, times
// written in the page's language), kept apart from messages so that
// parallel work on the pages merges cleanly; init adds them to messages.
var rolesMessages = map[string][2]string{
	"role.analyst":      {"Որակի վերլուծաբան", "QA analyst"},
	"team.roles.note":   {"Անդամը կարդում է զանգերը, վերլուծություններն ու ստուգաթերթերի հարցերը։ Որակի վերլուծաբանը նաև նշում է խոսնակներին (զանգը վերլուծվում է կրկին)։ Սեփականատերը կառավարում է հաշիվը՝ մարդկանց, բանալիները, ստացողը, ստուգաթերթերն ու վերբեռնումները։", "A member reads calls, analyses and checklists' questions. A QA analyst also names speakers (the call is analysed again). An owner manages the account: people, keys, the receiver, checklists and uploads."},
	"cl.read":           {"Հարցերը", "Questions"},
	"cl.readonly":       {"Միայն սեփականատերը կարող է փոխել ստուգաթերթը։", "Only an owner may change a checklist."},
	"cl.q.expect.short": {"Սպասվող արտահայտություններ", "Expected phrases"},
}

func init() {
	for k, v := range rolesMessages {
		if _, dup := messages[k]; dup {
			panic("web: message " + k + " is defined twice")
		}
		messages[k] = v
	}
}
