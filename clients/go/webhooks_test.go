package dbmon

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/http"
	"strconv"
	"testing"
	"time"
)

const testSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

func signed(secret, id string, at time.Time, payload string) http.Header {
	key, _ := base64.StdEncoding.DecodeString(secret[len("whsec_"):])
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + strconv.FormatInt(at.Unix(), 10) + "." + payload))
	header := http.Header{}
	header.Set("webhook-id", id)
	header.Set("webhook-timestamp", strconv.FormatInt(at.Unix(), 10))
	header.Set("webhook-signature", "v1,"+base64.StdEncoding.EncodeToString(mac.Sum(nil)))
	return header
}

func TestWebhookSignatureEdgeCases(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	payload := `{"id":"evt_1","type":"alert.triggered","created_at":"2027-01-15T08:00:00.000Z","data":{"object":{"id":"alr_1"}}}`
	good := signed(testSecret, "evt_1", now, payload)
	event, err := verifyWebhookAt([]byte(payload), good, testSecret, 0, now.Add(299*time.Second))
	alert, typed := event.(*AlertTriggeredEvent)
	if err != nil || !typed || alert.ID != "evt_1" || alert.Type != "alert.triggered" || alert.Data.Object.ID != "alr_1" {
		t.Fatalf("a good delivery: %#v %v", event, err)
	}
	rotated := signed(testSecret, "evt_1", now, payload)
	rotated.Set("webhook-signature", "v1,AAAA v2,whatever "+good.Get("webhook-signature"))
	if _, err := verifyWebhookAt([]byte(payload), rotated, testSecret, 0, now); err != nil {
		t.Fatalf("one matching signature among several: %v", err)
	}
	anotherID := good.Clone()
	anotherID.Set("webhook-id", "evt_2")
	withoutPrefix := signed(testSecret, "evt_1", now, payload)
	withoutPrefix.Set("webhook-signature", good.Get("webhook-signature")[len("v1,"):])

	refusals := map[string]struct {
		payload   string
		headers   http.Header
		secret    string
		tolerance time.Duration
		at        time.Time
	}{
		"too old":                         {payload, good, testSecret, 0, now.Add(301 * time.Second)},
		"too new":                         {payload, good, testSecret, 0, now.Add(-301 * time.Second)},
		"too old for a shorter tolerance": {payload, good, testSecret, 10 * time.Second, now.Add(11 * time.Second)},
		"another secret":                  {payload, good, "whsec_" + base64.StdEncoding.EncodeToString([]byte("another key of 24 bytes!")), 0, now},
		"a changed payload":               {payload + " ", good, testSecret, 0, now},
		"another id":                      {payload, anotherID, testSecret, 0, now},
		"a signature without v1,":         {payload, withoutPrefix, testSecret, 0, now},
		"no headers":                      {payload, http.Header{}, testSecret, 0, now},
		"a timestamp that is not a number": {payload, func() http.Header {
			h := good.Clone()
			h.Set("webhook-timestamp", "soon")
			return h
		}(), testSecret, 0, now},
		"a secret that is not base64":           {payload, good, "whsec_!!!", 0, now},
		"a signed payload that is not an event": {"[]", signed(testSecret, "evt_1", now, "[]"), testSecret, 0, now},
	}
	for name, c := range refusals {
		_, err := verifyWebhookAt([]byte(c.payload), c.headers, c.secret, c.tolerance, c.at)
		var refused *WebhookVerificationError
		if !errors.As(err, &refused) {
			t.Errorf("%s: verified (%v)", name, err)
		}
	}
}

func TestDecodeWebhookEventGivesTheStructOfItsType(t *testing.T) {
	for _, eventType := range WebhookEventTypes {
		event, err := DecodeWebhookEvent([]byte(`{"id":"evt_1","type":"` + eventType + `","created_at":"2027-01-15T08:00:00.000Z","data":{"object":{}}}`))
		if err != nil || event.EventType() != eventType || event.EventID() != "evt_1" {
			t.Fatalf("%s: %#v %v", eventType, event, err)
		}
		if _, unknown := event.(*UnknownWebhookEvent); unknown {
			t.Fatalf("%s decoded as unknown", eventType)
		}
	}
	event, err := DecodeWebhookEvent([]byte(`{"id":"evt_2","type":"database.status_changed","created_at":"2027-01-15T08:00:00.000Z","data":{"object":{"id":"db_1","status":"warning"},"previous_attributes":{"status":"healthy"}}}`))
	changed, typed := event.(*DatabaseStatusChangedEvent)
	if err != nil || !typed || changed.Data.Object.Status != "warning" || changed.Data.PreviousAttributes.Status != "healthy" {
		t.Fatalf("database.status_changed: %#v %v", event, err)
	}
	event, err = DecodeWebhookEvent([]byte(`{"id":"evt_3","type":"backup.finished","created_at":"2027-01-15T08:00:00.000Z","data":{"object":{"id":"bk_1"}}}`))
	unknown, isUnknown := event.(*UnknownWebhookEvent)
	if err != nil || !isUnknown || unknown.EventType() != "backup.finished" || unknown.EventID() != "evt_3" || string(unknown.Data) != `{"object":{"id":"bk_1"}}` {
		t.Fatalf("a type this client does not know: %#v %v", event, err)
	}
	for _, payload := range []string{`not json`, `{"id":"evt_4","type":"alert.triggered","data":{"object":"not an alert"}}`} {
		if _, err := DecodeWebhookEvent([]byte(payload)); err == nil {
			t.Fatalf("%s decoded", payload)
		}
	}
}
