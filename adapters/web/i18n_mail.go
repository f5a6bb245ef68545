package web

// Texts of e-mail and the first hour (issue 27), kept beside the main
// table so that the two grow apart without conflicts; init adds them.
var mailMessages = map[string][2]string{
	"forgot.link":   {"Մոռացե՞լ եք գաղտնաբառը", "Forgot password?"},
	"forgot.title":  {"Գաղտնաբառի վերականգնում", "Reset your password"},
	"forgot.note":   {"Գրեք ձեր էլ. հասցեն․ կուղարկենք գաղտնաբառը փոխելու հղում։", "Enter your e-mail address: we will send a link to choose a new password."},
	"forgot.submit": {"Ուղարկել հղումը", "Send the link"},
	"forgot.sent":   {"Եթե %s հասցեով հաշիվ կա, գաղտնաբառը փոխելու հղումն ուղարկված է այդ հասցեին։", "If %s has an account, a link to reset its password is on its way."},
	"forgot.sent.note": {"Հղումը գործում է 24 ժամ, մեկ անգամ։ Նամակ չստանալու դեպքում ստուգեք սպամի թղթապանակը կամ դիմեք ձեր հաշվի սեփականատիրոջը։",
		"The link works once, for 24 hours. No e-mail? Check the spam folder, or ask your account's owner."},
	"forgot.nomail": {"Այս ծառայությունը էլ. նամակներ չի ուղարկում։ Խնդրեք ձեր հաշվի սեփականատիրոջը ստեղծել գաղտնաբառի վերականգնման հղում «Թիմ» էջում (կամ օպերատորին՝ hyscribe user reset-link)։",
		"This service sends no e-mail. Ask your account's owner for a password reset link from the Team page (or the operator: hyscribe user reset-link)."},
	"team.invite.lang":        {"Նամակների լեզուն", "Language of their e-mail"},
	"team.invite.note.mail":   {"Հրավերը կուղարկվի էլ. նամակով (հղումը ցուցադրվում է նաև այստեղ՝ մեկ անգամ)։ Այն գործում է 7 օր, մեկ անգամ։", "The invitation is e-mailed (its link is also shown here, once). It works once, for 7 days."},
	"team.invite.submit.mail": {"Ուղարկել հրավերը", "Send the invitation"},
	"team.link.mailed":        {"Հղումն ուղարկված է %s-ին էլ. նամակով։", "The link was e-mailed to %s."},
	"team.link.mailfailed":    {"Էլ. նամակը չուղարկվեց․ պատճենեք հղումը և ուղարկեք այն ինքներդ։", "The e-mail could not be sent: copy the link and send it yourself."},
	"rec.empty.upload":        {"Դեռ ձայնագրություններ չկան։ Վերբեռնեք առաջին MP3 ֆայլը վերևում․ այն կհայտնվի այստեղ անմիջապես։", "No recordings yet. Upload a first MP3 file above: it appears here at once."},
	"rec.empty.api":           {"Ձեր համակարգերը կարող են ձայնագրություններ ուղարկել նաև API-ով։", "Your systems can also send recordings through the API."},
	"rec.empty.member":        {"Դեռ ձայնագրություններ չկան։ Դրանք կհայտնվեն այստեղ, երբ հաշվի սեփականատերը վերբեռնի կամ API-ով ուղարկի դրանք։", "No recordings yet. They appear here once your account's owner uploads them or sends them through the API."},
	"signup.trial":            {"Նոր հաշիվը ստանում է Business փաթեթ, իսկ %s փորձնական ձայնագրության ժամանակը՝ երբ հաստատեք ձեր հասցեն մեր ուղարկած նամակի հղումով։", "A new account gets the Business plan, and %s of trial audio once you confirm your address with the link in the e-mail we send."},
	"signup.trial.now":        {"Նոր հաշիվը ստանում է Business փաթեթ և %s փորձնական ձայնագրության ժամանակ․ կարող եք սկսել անմիջապես։", "A new account gets the Business plan with %s of trial audio: you can start at once."},
	"trial.confirmed":         {"Հասցեն հաստատված է․ հաշիվը ստացավ %s փորձնական ժամանակ։", "Address confirmed: the account got %s of trial audio."},
	"trial.gone":              {"Այս հաստատման հղումն այլևս չի գործում։", "This confirmation link no longer works."},
	"trial.taken":             {"Այս հասցեն արդեն ստացել է իր փորձնական ժամանակը։", "This address already had its trial."},
	"bulk.pick":               {"Ընտրել", "Choose"},
	"bulk.chosen":             {"Ընտրվածները՝", "Chosen recordings:"},
	"bulk.format":             {"Ձևաչափ", "Format"},
	"bulk.export":             {"Ներբեռնել ZIP", "Download ZIP"},
	"bulk.delete":             {"Ջնջել", "Delete"},
	"bulk.delete.confirm":     {"Ջնջե՞լ ընտրված ձայնագրությունները։ Ձայնը, տեքստը և վերլուծությունը կջնջվեն վերջնականապես։", "Delete the chosen recordings? Their audio, transcript and analysis are gone for good."},
	"bulk.err.count":          {"Ընտրեք 1-ից %d ձայնագրություն։", "Choose between 1 and %d recordings."},
	"bulk.deleted":            {"Ջնջված ձայնագրություններ՝ %d։", "Recordings deleted: %d."},
	"one.file":                {"Ֆայլ", "File"},
	"del.one":                 {"Ջնջել ձայնագրությունը", "Delete recording"},
	"del.cancel":              {"Չեղարկել վերբեռնումը", "Cancel upload"},
	"del.confirm":             {"Ջնջե՞լ այս ձայնագրությունը։ Ձայնը, տեքստը և վերլուծությունը կջնջվեն վերջնականապես։", "Delete this recording? Its audio, transcript and analysis are gone for good."},
	"up.retry":                {"Կրկին փորձել", "Retry"},
	"up.cancelled":            {"Վերբեռնումը չեղարկված է", "Upload cancelled"},
	"btn.copy.secret":         {"Պատճենել գաղտնիքը", "Copy secret"},
	"set.secret.hide":         {"Պահպանել եմ, թաքցնել", "I have stored it: hide it"},
	"set.secret.shown":        {"Ձեր նոր գաղտնի բանալին արդեն գործում է։ Պատճենեք այն հիմա. թաքցնելուց հետո (կամ 10 րոպեից) այն այլևս չի ցուցադրվի։", "Your new secret is in use now. Copy it now: once you hide it (or in 10 minutes) it is not shown again."},
	"btn.copy.link":           {"Պատճենել հղումը", "Copy link"},
	"nav.menu":                {"Ընտրացանկ", "Menu"},
	"filter.more":             {"Զտիչներ", "Filters"},
	"set.readonly":            {"Դուք հաշվի անդամ եք․ կարգավորումները կարող եք դիտել, փոխել՝ միայն սեփականատերերը։", "You are a member: you can see these settings; only owners change them."},
	"pw.confirm":              {"Կրկնեք նոր գաղտնաբառը", "Repeat the new password"},
	"pw.err.mismatch":         {"Նոր գաղտնաբառը և դրա կրկնությունը չեն համընկնում։", "The new password and its repetition differ."},
	"pw.err.same":             {"Նոր գաղտնաբառը նույնն է, ինչ ներկայիսը․ ընտրեք ուրիշը։", "The new password is the same as the current one: choose another."},
	"filter.badrange":         {"«Սկսած» ամսաթիվը (%s) «Մինչև» ամսաթվից (%s) հետո է․ ոչինչ չէր գտնվի։ Փոխեք դրանցից մեկը։", "The From date (%s) is after the To date (%s): nothing could match. Change one of them."},
	"up.err.metadata.line":    {"Մետատվյալների %d-րդ տողը («%s») «բանալի = արժեք» չէ։", "Metadata line %d (“%s”) is not “key = value”."},
	"up.resume":               {"Ֆայլը դեռ չի ստացվել։ Եթե վերբեռնումն ընդհատվել է, ընտրեք նույն ֆայլը կրկին (մինչև %s), կամ չեղարկեք։", "The file has not arrived yet. If its upload was cut short, pick the same file again (until %s), or cancel."},
	"up.err.notwaiting":       {"Այս ձայնագրությունն այլևս ֆայլի չի սպասում։", "This recording no longer waits for its file."},
	"low.none":                {"Ձայնագրության ժամանակ չի մնացել․ նոր ձայնագրությունները կմերժվեն։", "No audio time left: new recordings will be refused."},
	"low.some":                {"Մնացել է ընդամենը %s ձայնագրության ժամանակ․ դրանից երկար ձայնագրությունները կմերժվեն։", "Only %s of audio time left: recordings longer than that will fail."},
	"low.owner":               {"Մնացորդը համալրելու համար դիմեք ծառայության օպերատորին։", "Ask the service's operator to add seconds."},
	"low.member":              {"Տեղեկացրեք հաշվի սեփականատիրոջը։", "Tell your account's owner."},
	"team.link.once.mail":     {"Հղումը ցուցադրվում է միայն հիմա և գործում է մեկ անգամ։", "The link is shown only now and works once."},
}

func init() {
	for k, v := range mailMessages {
		if _, dup := messages[k]; dup {
			panic("web: text " + k + " is defined twice")
		}
		messages[k] = v
	}
}
