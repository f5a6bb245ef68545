package web

// qaMessages are the interface texts of the QA features (issue 27: the
// call's score, the account's time zone, speaker roles, failure codes),
// kept apart from messages so that parallel work on the pages merges
// cleanly; init adds them to messages, where every lookup and the
// translation test find them.
var qaMessages = map[string][2]string{
	"one.total":     {"Զանգի միավորը", "Call score"},
	"one.total.how": {"(«այո» պատասխաններ / «այո» կամ «ոչ» պատասխանված հարցեր · նրանց միավորների կշռված միջինը․ «անորոշները» չեն հաշվվում)", "(questions answered yes / questions answered yes or no · weighted mean of their scores; unclear answers are left out)"},

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
	"speaker.reanalysed":       {"Պահպանված է․ զանգը վերավերլուծվեց նոր դերերով, և ստացողին ուղարկվեց նոր analysis_ready։", "Saved: the call was analysed again with the new roles, and a new analysis_ready was sent to the receiver."},
	"speaker.owneronly":        {"Խոսնակներին կարող են անվանել միայն սեփականատերը և որակի վերլուծաբանը․ դերերը փոխելը վերավերլուծում է զանգը։", "Only an owner or a QA analyst can name the speakers: changing their roles analyses the call again."},
	"speaker.limit.call":       {"Այս զանգի դերերն այս րոպեին արդեն փոխվել են %d անգամ՝ առավելագույնը։ Ոչինչ չի պահպանվել․ սպասեք մեկ րոպե։", "This call's roles were already changed %d times this minute, the most allowed. Nothing was saved: wait a minute."},
	"speaker.limit.account":    {"Հաշվում դերերն այս րոպեին արդեն փոխվել են %d անգամ՝ առավելագույնը։ Ոչինչ չի պահպանվել․ սպասեք մեկ րոպե։", "Roles were already changed %d times this minute in this account, the most allowed. Nothing was saved: wait a minute."},
	"resend.limited":           {"Հաշիվը այս րոպեին արդեն %d անգամ է կրկին ուղարկել՝ առավելագույնը (կայքից և API-ից միասին)։ Ոչինչ չի ուղարկվել․ սպասեք մեկ րոպե։", "The account already resent %d times this minute, the most allowed (from this site and the API together). Nothing was sent: wait a minute."},
	"speaker.note":             {"Եթե ստուգաթերթի հարցերից որևէ մեկը վերաբերում է միայն օպերատորին կամ հաճախորդին, դերերը փոխելուց հետո զանգը կվերավերլուծվի, և ստացողը կստանա նոր analysis_ready։", "If a checklist question is limited to the agent or the customer, changing the roles analyses the call again and sends its receiver a new analysis_ready."},
	"speaker.unknown.agent":    {"Զանգում օպերատորը նշված չէ․ նշեք խոսնակներին ձայնագրության էջում։", "The call's agent is not identified: name the speakers on the recording's page."},
	"speaker.unknown.customer": {"Զանգում հաճախորդը նշված չէ․ նշեք խոսնակներին ձայնագրության էջում։", "The call's customer is not identified: name the speakers on the recording's page."},

	"reason.nophrases":   {"Հարցը սպասվող արտահայտություններ չունի․ ներկառուցված վերլուծիչը պատասխանում է միայն դրանցով։", "The question lists no expected phrases; the built-in analyser answers only from phrases."},
	"reason.approximate": {"Սպասվող արտահայտությունը գտնվեց միայն մոտավորապես։", "An expected phrase was found only approximately."},
	"reason.model":       {"Չաթ մոդելը այս հարցին օգտագործելի պատասխան չտվեց։", "The chat model gave no usable answer to this question."},

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
	// Failure reasons by their stable code (failures.go). The English of
	// each is the API's own sentence, shown as it is on English pages.
	"fail.upload_expired":        {"Վերբեռնման ժամկետը լրացավ․ ձայնագրությունը չվերբեռնվեց։", "The upload window expired: no audio was uploaded."},
	"fail.upload_empty":          {"Վերբեռնված ֆայլը դատարկ է․ ուղարկեք մեկ MP3 ֆայլի բովանդակությունը։", "The upload is empty: send the bytes of one MP3 file."},
	"fail.upload_too_large":      {"Վերբեռնված ֆայլը մեծ է %s սահմանից։", "The upload is larger than the %s limit."},
	"fail.file_empty":            {"Ֆայլը դատարկ է։", "The file is empty."},
	"fail.no_mp3_frames":         {"Ֆայլը MP3 ձայնագրություն չէ (MPEG ձայնային կադրեր չգտնվեցին)։", "The file is not MP3 audio (no MPEG audio frames found)."},
	"fail.mp3_format_change":     {"MP3 ֆայլը %s վ հետո փոխում է ձևաչափը՝ %s-ից %s․ տարբեր ձևաչափերի ձայնագրություններից միացված ֆայլերը չեն ընդունվում․ փոխարկեք ամբողջ ձայնագրությունը մեկ ձևաչափի և վերբեռնեք։", "The MP3 file changes format after %s s, from %s to %s; files joined from recordings of different formats are not supported: convert the whole recording to one format and upload it again."},
	"fail.silent_audio":          {"Ձայնագրությունը դատարկ է․ ձայնով MP3 կադրեր չգտնվեցին։", "The audio is empty: no MP3 frames with sound were found."},
	"fail.audio_missing":         {"Վերբեռնված ձայնագրությունը պահոցում չէ։", "The uploaded audio is missing from storage."},
	"fail.not_mp3":               {"Ֆայլը %s է, ոչ MP3․ ընդունվում է միայն MP3։", "The file is %s, not MP3; only MP3 is supported."},
	"fail.corrupt_mp3":           {"MP3 ֆայլը կիսատ է կամ վնասված։", "The MP3 file is truncated or corrupt."},
	"fail.undecodable_mp3":       {"MP3 ֆայլը հնարավոր չէ վերծանել։", "The MP3 file cannot be decoded."},
	"fail.too_long":              {"Ձայնագրությունը %s է՝ ավելի երկար, քան թույլատրելի առավելագույնը՝ %s։", "The recording is %s, longer than the maximum of %s."},
	"fail.over_balance":          {"Ձայնագրությունը %s է, իսկ հաշվին մնացել է %s։", "The recording is %s; %s remain in the account."},
	"fail.no_speech":             {"Ձայնագրության մեջ խոսք չհայտնաբերվեց։", "No speech was detected in the recording."},
	"fail.mono_call":             {"Մոնո հեռախոսազանգի խոսնակներին հնարավոր չէ տարբերել․ ուղարկեք ստերեո ձայնագրություն (մեկ խոսնակ՝ մեկ ալիքում) կամ ընտրեք «Մեկ ձայն» տեսակը։", "A mono phone call's speakers cannot be told apart: send a stereo recording (one speaker per channel) or use the single-voice type."},
	"fail.wrong_channels":        {"Սպասվում էր %s ձայնագրություն, գտնվեց %s ալիք։", "Expected a %s recording, found %s channel(s)."},
	"fail.speech_failed":         {"Խոսքի ճանաչումը ձախողվեց։ Փորձեք ավելի ուշ։", "Speech recognition failed. Try again later."},
	"fail.stalled":               {"Մշակումը կանգ առավ «%s» փուլում և չվերսկսվեց։", "Processing stopped in the %s state and did not resume."},
	"fail.internal":              {"Ներքին սխալ «%s» փուլում․ ձայնագրությունը հնարավոր չեղավ մշակել։", "Internal error in the %s stage; the recording could not be processed."},
	"fail.other":                 {"Ձայնագրությունը հնարավոր չեղավ մշակել։", "The recording could not be processed."},
	"fail.checklist_gone":        {"Ստուգաթերթի այս տարբերակն այլևս գոյություն չունի։", "This version of the checklist no longer exists."},
	"fail.analysis_failed":       {"Ստուգաթերթի վերլուծությունը ձախողվեց։", "The checklist analysis failed."},
	"fail.analysis_other":        {"Ստուգաթերթի վերլուծությունը ձախողվեց։", "The checklist analysis failed."},
	"fail.receiver_status":       {"Ստացողը պատասխանեց HTTP %s կոդով։", "The receiver answered HTTP %s."},
	"fail.receiver_redirect":     {"Ստացողը վերահղեց այլ հասցե․ վերահղումներին չենք հետևում, նշեք վերջնական հասցեն։", "The receiver redirected elsewhere; redirects are not followed, set the final address."},
	"fail.receiver_timeout":      {"Ստացողը ժամանակին չպատասխանեց։", "The receiver did not answer in time."},
	"fail.receiver_unreachable":  {"Ստացողի հետ կապ հաստատել չհաջողվեց։", "The receiver could not be reached."},
	"fail.receiver_circuit_open": {"Այս ստացողին առաքումները անընդմեջ ձախողվում էին․ նոր փորձը կլինի որոշ ժամանակ անց։", "Deliveries to this receiver kept failing; the next attempt is allowed after a pause."},
	"fail.receiver_busy":         {"Ստացողը զբաղված էր․ նրան ուղղված այլ առաքումներ դեռ ընթացքի մեջ էին։", "The receiver was busy with other deliveries in flight."},
	"fail.receiver_private":      {"Ստացողի հասցեն մասնավոր ցանցում է և թույլատրված չէ։", "The receiver's address is on a private network and is not allowed."},
	"fail.receiver_url":          {"Ստացողի հասցեն անվավեր է։", "The receiver's address is not valid."},
	"fail.delivery_cancelled":    {"Առաքումը ընդհատվեց։", "The delivery was cancelled."},
	"fail.delivery_other":        {"Առաքումը ձախողվեց։", "The delivery failed."},

	"invalid.role_taken": {"Երկու խոսնակ չեն կարող ունենալ նույն դերը։", "Two speakers cannot have the same role."},
}

func init() {
	for k, v := range qaMessages {
		if _, dup := messages[k]; dup {
			panic("web: message " + k + " is defined twice")
		}
		messages[k] = v
	}
}
