package app

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"testing"

	"github.com/hyscribe/hyscribe/domain"
)

// A failed delivery is a WARN whose message says it failed (it was an INFO
// "webhook delivered" with status failed); a delivered one stays an INFO.
func TestDeliveryLogSaysWhatHappened(t *testing.T) {
	for _, c := range []struct {
		status, level, msg string
	}{
		{domain.DeliveryFailed, "WARN", "webhook delivery failed"},
		{domain.DeliveryDelivered, "INFO", "webhook delivered"},
	} {
		var buf bytes.Buffer
		logDelivery(slog.New(slog.NewJSONHandler(&buf, nil)), domain.Delivery{DocID: "d", Status: c.status, HTTPStatus: 500, Error: "receiver answered 500"})
		var line map[string]any
		if err := json.Unmarshal(buf.Bytes(), &line); err != nil {
			t.Fatal(err)
		}
		if line["level"] != c.level || line["msg"] != c.msg {
			t.Errorf("%s: logged %v", c.status, line)
		}
		if c.status == domain.DeliveryFailed && line["err"] != "receiver answered 500" {
			t.Errorf("a failed delivery's log has no reason: %v", line)
		}
	}
}
