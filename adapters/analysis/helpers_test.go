package analysis_test

import "encoding/json"

func dump(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
