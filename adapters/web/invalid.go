package web

import (
	"errors"

	"github.com/hyscribe/hyscribe/domain"
)

// invalidText is a validation error in the page's language. The domain
// writes its messages in English, with the details (a question id, an
// address); an Armenian page shows the message of the error's code from
// messages ("invalid.<code>") instead, and the English one only for a code
// it does not know.
func invalidText(l Lang, err error) string {
	var ve *domain.ValidationError
	if !errors.As(err, &ve) {
		return err.Error()
	}
	if _, ok := messages["invalid."+ve.Code]; ok && l != LangEn {
		return text(l, "invalid."+ve.Code)
	}
	return ve.Msg
}
