package web

import (
	"fmt"

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

	// The history's rows.
	"rec.file": {"Ֆայլ", "File"},
}

func init() {
	for k, v := range findMessages {
		if _, dup := messages[k]; dup {
			panic("web: message " + k + " is defined twice")
		}
		messages[k] = v
	}
}
