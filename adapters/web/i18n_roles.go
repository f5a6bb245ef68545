package web

// rolesMessages are the interface texts of the QA team's roles and the
// fixes of issue 36 items 7 and 8 (the API page's signature recipe, times
// written in the page's language), kept apart from messages so that
// parallel work on the pages merges cleanly; init adds them to messages.
var rolesMessages = map[string][2]string{
	"role.analyst":             {"Որակի վերլուծաբան", "QA analyst"},
	"team.roles.note":          {"Անդամը կարդում է զանգերը, վերլուծություններն ու ստուգաթերթերի հարցերը։ Որակի վերլուծաբանը նաև նշում է խոսնակներին (զանգը վերլուծվում է կրկին)։ Սեփականատերը կառավարում է հաշիվը՝ մարդկանց, բանալիները, ստացողը, ստուգաթերթերն ու վերբեռնումները։", "A member reads calls, analyses and checklists' questions. A QA analyst also names speakers (the call is analysed again). An owner manages the account: people, keys, the receiver, checklists and uploads."},
	"cl.read":                  {"Հարցերը", "Questions"},
	"cl.readonly":              {"Միայն սեփականատերը կարող է փոխել ստուգաթերթը։", "Only an owner may change a checklist."},
	"api.verify.without":       {"առանց", "without"},
	"api.verify.more":          {"HMAC-ի բանալին webhookSecret-ի «whsec_»-ից հետո եկող մասի base64-ով վերծանված բայթերն են, ոչ թե տեքստը, ինչպես գրված է։ Standard Webhooks գրադարանին տվեք webhookSecret-ը այնպես, ինչպես կա (whsec_…)։ Օպերատորի դրած՝ «whsec_»-ով չսկսվող գաղտնի բանալին բանալի է իր բայթերով։", "The HMAC key is the base64-decoded part of webhookSecret after “whsec_”, not the text as written. Give a Standard Webhooks library the webhookSecret as it is (whsec_…). A secret an operator set that does not begin with “whsec_” is the key as its own bytes."},
	"api.verify.shell":         {"Նույնը shell-ում (bash, openssl)՝ body.json-ում հարցման մարմինն է՝ ճիշտ այնպես, ինչպես եկել է․", "The same in a shell (bash, openssl), with the request's body exactly as it came in body.json:"},
	"api.verify.shell.vars":    {"Կարգավորումների գաղտնի բանալին և հարցման վերնագրերը", "the secret from Settings and the request's headers"},
	"api.verify.shell.out":     {"«v1,» + այս տողը պետք է լինի webhook-signature-ի v1 ստորագրություններից մեկը", "“v1,” + this line must be one of the v1 signatures in webhook-signature"},
	"rec.notitle.failed":       {"(առանց վերնագրի)", "(no title)"},
	"set.secret.confirm.first": {"Ստեղծե՞լ գաղտնի բանալին։ Այն կցուցադրվի մեկ անգամ, և դրանից հետո իրադարձությունները կստորագրվեն դրանով։", "Generate a secret? It is shown once, and events are signed with it from then on."},
	"api.reference.en":         {"Տեղեկատուն (OpenAPI փաստաթուղթը գրված է անգլերեն)", "Reference"},
	"cl.q.expect.short":        {"Սպասվող արտահայտություններ", "Expected phrases"},
}

func init() {
	for k, v := range rolesMessages {
		if _, dup := messages[k]; dup {
			panic("web: message " + k + " is defined twice")
		}
		messages[k] = v
	}
}
