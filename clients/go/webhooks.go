package dbmon

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// DefaultWebhookTolerance is how far a delivery's webhook-timestamp may be from now.
const DefaultWebhookTolerance = 5 * time.Minute

// WebhookEvent is a verified delivery's event: a *AlertTriggeredEvent, *AlertResolvedEvent,
// *DatabaseStatusChangedEvent, *OptimizationReadyEvent, *OptimizationAppliedEvent,
// *OptimizationFailedEvent or *WebhookTestEvent (switch on its type; Data.Object is the resource
// the event is about, typed), or an *UnknownWebhookEvent for a type this client does not know.
type WebhookEvent interface {
	EventType() string
	EventID() string
}

// UnknownWebhookEvent is an event of a type this client has no struct for (one a newer server
// added): Data is left as it came.
type UnknownWebhookEvent struct {
	ID        string          `json:"id"`
	Type      string          `json:"type"`
	CreatedAt string          `json:"created_at"`
	Data      json.RawMessage `json:"data"`
}

// EventType is the event's type.
func (e *UnknownWebhookEvent) EventType() string { return e.Type }

// EventID is the event's id, also the delivery's webhook-id header.
func (e *UnknownWebhookEvent) EventID() string { return e.ID }

// DecodeWebhookEvent decodes a payload into the struct of its type (see WebhookEvent). It does
// not verify anything: VerifyWebhook does, then decodes with it.
func DecodeWebhookEvent(payload []byte) (WebhookEvent, error) {
	var envelope UnknownWebhookEvent
	if err := json.Unmarshal(payload, &envelope); err != nil {
		return nil, err
	}
	event := newWebhookEvent(envelope.Type)
	if event == nil {
		return &envelope, nil
	}
	if err := json.Unmarshal(payload, event); err != nil {
		return nil, err
	}
	return event, nil
}

// WebhookVerificationError: a delivery whose signature or timestamp does not verify.
type WebhookVerificationError struct{ Reason string }

func (e *WebhookVerificationError) Error() string {
	return "dbmon: webhook verification failed: " + e.Reason
}

// VerifyWebhook checks a delivery per Standard Webhooks, then returns its typed event. payload is the
// request body exactly as received; secret is the endpoint's whsec_... secret; tolerance 0 means
// DefaultWebhookTolerance. A timestamp older or newer than the tolerance is refused, so is a
// delivery none of whose v1 signatures matches.
func VerifyWebhook(payload []byte, headers http.Header, secret string, tolerance time.Duration) (WebhookEvent, error) {
	return verifyWebhookAt(payload, headers, secret, tolerance, time.Now())
}

func verifyWebhookAt(payload []byte, headers http.Header, secret string, tolerance time.Duration, now time.Time) (WebhookEvent, error) {
	if tolerance == 0 {
		tolerance = DefaultWebhookTolerance
	}
	id, timestamp, signatures := headers.Get("webhook-id"), headers.Get("webhook-timestamp"), headers.Get("webhook-signature")
	if id == "" || timestamp == "" || signatures == "" {
		return nil, &WebhookVerificationError{Reason: "missing webhook-id, webhook-timestamp or webhook-signature header"}
	}
	seconds, err := strconv.ParseInt(timestamp, 10, 64)
	if err != nil {
		return nil, &WebhookVerificationError{Reason: "webhook-timestamp is not Unix seconds"}
	}
	if age := now.Sub(time.Unix(seconds, 0)); age > tolerance || age < -tolerance {
		return nil, &WebhookVerificationError{Reason: "webhook-timestamp is outside the tolerance"}
	}
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		return nil, &WebhookVerificationError{Reason: "the secret is not whsec_ and base64"}
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + timestamp + "."))
	mac.Write(payload)
	expected := mac.Sum(nil)
	if !anySignatureMatches(signatures, expected) {
		return nil, &WebhookVerificationError{Reason: "no signature matches"}
	}
	event, err := DecodeWebhookEvent(payload)
	if err != nil {
		return nil, &WebhookVerificationError{Reason: "the payload is not an event: " + err.Error()}
	}
	return event, nil
}

// anySignatureMatches compares each space-separated "v1,<base64>" signature in constant time.
func anySignatureMatches(signatures string, expected []byte) bool {
	matched := false
	for _, signature := range strings.Fields(signatures) {
		version, encoded, found := strings.Cut(signature, ",")
		if !found || version != "v1" {
			continue
		}
		decoded, err := base64.StdEncoding.DecodeString(encoded)
		if err == nil && hmac.Equal(decoded, expected) {
			matched = true
		}
	}
	return matched
}
