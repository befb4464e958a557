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
	if err != nil || event.ID != "evt_1" || event.Type != "alert.triggered" || string(event.Data.Object) != `{"id":"alr_1"}` {
		t.Fatalf("a good delivery: %+v %v", event, err)
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
