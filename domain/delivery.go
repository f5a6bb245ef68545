package domain

import "time"

// Delivery statuses.
const (
	DeliveryPending   = "pending"
	DeliveryDelivered = "delivered"
	DeliveryFailed    = "failed"
)

// Delivery is one attempt to send an event to a customer's receiver.
type Delivery struct {
	ID          string
	EventID     string // the pipeline event that caused it; one delivery per event
	DocID       DocID
	AccountID   AccountID
	EventType   string // transcript_ready, analysis_ready, transcript_failed
	URL         string
	Payload     []byte
	Status      string
	HTTPStatus  int
	LatencyMs   int64
	Error       string
	CreatedAt   time.Time
	AttemptedAt *time.Time
}
