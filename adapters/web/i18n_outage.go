package web

// outageMessages are the texts of the pages answered while a dependency is
// briefly unavailable (issue 35: the store silent, down or full), kept
// apart from messages so that parallel work on the pages merges cleanly.
var outageMessages = map[string][2]string{
	"err.unavailable.title": {"Ծառայությունը ժամանակավորապես անհասանելի է", "Briefly unavailable"},
	"err.unavailable":       {"Ծառայությունը կարճ ժամանակով անհասանելի է։ Ոչինչ չի կորել․ փորձեք մի քանի վայրկյանից։", "The service is briefly unavailable. Nothing was lost; try again in a few seconds."},
	"err.storagefull":       {"Ծառայության պահեստում տեղ չի մնացել․ ոչինչ չպահվեց։ Փորձեք մի փոքր ուշ։", "The service is out of storage space; nothing was stored. Try again in a little while."},
}

func init() {
	for k, v := range outageMessages {
		if _, dup := messages[k]; dup {
			panic("web: message " + k + " is defined twice")
		}
		messages[k] = v
	}
}
