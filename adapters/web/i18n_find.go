package web

import (
	"fmt"

	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/domain"
)

// findMessages are the interface texts of finding and triaging calls in
// the history (issue 36: file names, metadata columns, sorting, score and
// agent filters, bulk actions over a filter), kept apart from messages so
// that parallel work merges cleanly; init adds them to messages.
var findMessages = map[string][2]string{
	// Settings: the history's metadata columns.
	"set.columns":      {"Պատմության սյունակներ", "History columns"},
	"set.columns.keys": {"Metadata-ի բանալիներ՝ որպես սյունակներ", "Metadata keys shown as columns"},
	"set.columns.note": {"Ստորակետով բաժանված, առավելագույնը %d (օրինակ՝ agent, phone, campaign)։ Որոնումը գտնում է նաև դրանց արժեքներն ու ֆայլի անունը։",
		"Separated by commas, at most %d (for example agent, phone, campaign). Search also finds their values and the file name."},
	"set.agentkey":               {"Օպերատորին նշող բանալին", "The key naming the agent"},
	"set.agentkey.note":          {"Այս բանալու արժեքով (օրինակ՝ ներքին համարը) պատմությունը զտվում է ըստ օպերատորի։ Դատարկ՝ չկա։", "The history filters by agent on this key's value (an extension, say). Empty: none."},
	"invalid.too_many_columns":   {fmt.Sprintf("Սյունակ կարող են լինել առավելագույնը %d բանալի։", domain.MaxListColumns), fmt.Sprintf("At most %d metadata keys can be columns.", domain.MaxListColumns)},
	"invalid.invalid_column_key": {fmt.Sprintf("Metadata-ի բանալին 1-ից %d տառ, թիվ կամ _ - . նշան է՝ առանց բացատի։", domain.MaxListColumnKeyLen), fmt.Sprintf("A metadata key is 1 to %d letters, digits, _ - or . without spaces.", domain.MaxListColumnKeyLen)},

	// The history's order, filters and pages.
	"find.sort":               {"Դասավորել", "Sort"},
	"find.sort.":              {"Նորերը՝ սկզբում", "Newest first"},
	"find.sort.date-asc":      {"Հները՝ սկզբում", "Oldest first"},
	"find.sort.score-desc":    {"Բարձր միավորը՝ սկզբում", "Highest score first"},
	"find.sort.score-asc":     {"Ցածր միավորը՝ սկզբում", "Lowest score first"},
	"find.sort.duration-desc": {"Երկարները՝ սկզբում", "Longest first"},
	"find.sort.duration-asc":  {"Կարճերը՝ սկզբում", "Shortest first"},
	"find.scorefrom":          {"Միավորը՝ սկսած", "Score from"},
	"find.scoreunder":         {"Միավորը՝ ցածր քան", "Score under"},
	"find.agent":              {"Օպերատոր", "Agent"},
	"find.agent.clear":        {"Հանել օպերատորի զտիչը", "Remove the agent filter"},
	"find.review":             {"Պետք է վերանայել", "Needs review"},
	"find.triage":             {"Այս շաբաթ՝ 0.5-ից ցածր", "This week, under 0.5"},
	"find.total":              {"Ընդամենը՝ %d", "%d in all"},
	"find.first":              {"« Առաջին էջ", "« First page"},
	"find.badsort":            {"Անհայտ դասավորություն․ ցուցադրված են նորերը՝ սկզբում։", "Unknown order: showing the newest first."},
	"find.badscore":           {"Միավորը 0-ից 1 թիվ է (օրինակ՝ 0.5) կամ տոկոս, ոչ թե «%s»։", "A score is a number from 0 to 1 (such as 0.5) or a percentage, not \"%s\"."},
	"invalid.invalid_cursor":  {"Էջի հղումն այլևս չի գործում․ ցուցադրված է առաջին էջը։", "That page's link no longer works: showing the first page."},
	"invalid.no_agent_key":    {"Հաշիվը չի նշել օպերատորին նշող բանալին (Կարգավորումներ, Պատմության սյունակներ)։", "The account names no agent key (Settings, History columns)."},
	"find.neighbours":         {"Ցանկի զանգերը", "Calls in the list"},
	"find.prevcall":           {"← Նախորդ զանգը", "← Previous call"},
	"find.nextcall":           {"Հաջորդ զանգը →", "Next call →"},
	"find.backtolist":         {"Վերադառնալ ցանկին", "Back to the list"},

	// Bulk actions over a filter.
	"bulk.count":              {"Ընտրված է՝ %d", "%d chosen"},
	"bulk.count.all":          {"Ընտրված են ֆիլտրի բոլոր %d-ը", "All %d matching the filter chosen"},
	"bulk.all":                {"Ընտրել ֆիլտրին համապատասխանող բոլոր %d-ը", "Select all %d matching this filter"},
	"bulk.all.toomany":        {"Միանգամից՝ առավելագույնը %d․ նեղացրեք ֆիլտրը։", "At most %d at once: narrow the filter."},
	"bulk.delete.confirm.n":   {"Ջնջե՞լ %d ձայնագրություն։ Ձայնը, տեքստը և վերլուծությունը կջնջվեն վերջնականապես։", "Delete %d recordings? Their audio, transcript and analysis are gone for good."},
	"invalid.too_many_chosen": {fmt.Sprintf("Միանգամից կարելի է ընտրել առավելագույնը %d ձայնագրություն․ նեղացրեք ֆիլտրը։", app.MaxBulkSelection), fmt.Sprintf("At most %d recordings can be chosen at once: narrow the filter.", app.MaxBulkSelection)},
}

func init() {
	for k, v := range findMessages {
		if _, dup := messages[k]; dup {
			panic("web: message " + k + " is defined twice")
		}
		messages[k] = v
	}
}
