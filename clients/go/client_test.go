package dbmon

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

func TestRetryDecisions(t *testing.T) {
	client := NewClient(WithMaxRetryWait(10 * time.Second))
	answer := func(status int, retryAfter time.Duration) error {
		details := ErrorDetails{StatusCode: status, retryAfter: retryAfter}
		if status == 429 {
			return &RateLimitError{ErrorDetails: details, RetryAfter: retryAfter}
		}
		return &APIError{details}
	}
	refused := &ConnectionError{Err: &net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}}
	reset := &ConnectionError{Err: errors.New("connection reset by peer")}
	cases := []struct {
		name    string
		attempt int
		method  string
		failure error
		retry   bool
		delay   time.Duration // exact delay expected; -1: a jittered backoff
	}{
		{"429 on a POST, Retry-After honoured exactly", 0, "POST", answer(429, 3*time.Second), true, 3 * time.Second},
		{"429 without Retry-After backs off", 1, "PATCH", answer(429, -1), true, -1},
		{"429 asking longer than the maximum wait", 0, "GET", answer(429, 11*time.Second), false, 0},
		{"503 on a GET", 0, "GET", answer(503, -1), true, -1},
		{"503 on a GET with Retry-After", 0, "DELETE", answer(503, 2*time.Second), true, 2 * time.Second},
		{"500 on a POST may have acted", 0, "POST", answer(500, -1), false, 0},
		{"500 on a PATCH may have acted", 0, "PATCH", answer(500, -1), false, 0},
		{"a 400 is never retried", 0, "GET", &InvalidRequestError{ErrorDetails{StatusCode: 400, retryAfter: -1}}, false, 0},
		{"a 409 is never retried", 0, "PUT", &ConflictError{ErrorDetails{StatusCode: 409, retryAfter: -1}}, false, 0},
		{"a reset connection on a PUT", 0, "PUT", reset, true, -1},
		{"a reset connection on a POST may have sent it", 0, "POST", reset, false, 0},
		{"a refused connection on a POST sent nothing", 0, "POST", refused, true, -1},
		{"the retries are used up", 2, "GET", answer(503, -1), false, 0},
		{"a decoding error is not retried", 0, "GET", errors.New("json: cannot unmarshal"), false, 0},
	}
	for _, c := range cases {
		delay, retry := client.retryDelay(c.attempt, c.method, c.failure)
		if retry != c.retry || (retry && c.delay >= 0 && delay != c.delay) {
			t.Errorf("%s: got retry %v after %v", c.name, retry, delay)
		}
		if retry && c.delay < 0 && (delay < 0 || delay > backoffBase<<uint(c.attempt)) {
			t.Errorf("%s: backoff %v beyond %v", c.name, delay, backoffBase<<uint(c.attempt))
		}
	}
	if _, retry := NewClient(WithMaxRetries(0)).retryDelay(0, "GET", answer(503, -1)); retry {
		t.Error("WithMaxRetries(0) retried")
	}
}

func TestBackoffIsCappedAndJittered(t *testing.T) {
	distinct := map[time.Duration]bool{}
	for i := 0; i < 50; i++ {
		delay := jitteredBackoff(12)
		if delay < 0 || delay > backoffCap {
			t.Fatalf("backoff %v beyond the cap", delay)
		}
		distinct[delay] = true
	}
	if len(distinct) < 40 {
		t.Fatalf("only %d distinct delays in 50: no jitter", len(distinct))
	}
}

func TestRequestsCarryCredentialsAndAreRetriedOnlyWhenSafe(t *testing.T) {
	var calls int32
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := atomic.AddInt32(&calls, 1)
		if r.Header.Get("Authorization") != "Bearer dbm_oat_token" || r.Header.Get("User-Agent") != "dbmon-go/"+Version {
			w.WriteHeader(418)
			return
		}
		w.Header().Set("X-Request-Id", "req_test")
		if n == 1 {
			w.WriteHeader(503)
			_, _ = io.WriteString(w, `{"error":{"type":"api_error","message":"down"}}`)
			return
		}
		_, _ = io.WriteString(w, `{"id":"usr_1","email":"a@example.com"}`)
	}))
	defer server.Close()
	t.Setenv("DBMON_BASE_URL", server.URL+"/v1")
	t.Setenv("DBMON_API_KEY", "")
	t.Setenv("DBMON_ACCESS_TOKEN", "dbm_oat_token")
	client := NewClient()
	client.sleep = func(context.Context, time.Duration) error { return nil }
	user, err := client.GetCurrentUser(context.Background())
	if err != nil || user.ID != "usr_1" || calls != 2 {
		t.Fatalf("GET after a 503: %+v %v, %d calls", user, err, calls)
	}
	atomic.StoreInt32(&calls, 0)
	_, err = client.StartTOTPEnrollment(context.Background())
	var apiError *APIError
	if !errors.As(err, &apiError) || apiError.StatusCode != 503 || apiError.RequestID != "req_test" || calls != 1 {
		t.Fatalf("a POST answered 503 was retried or mistyped: %v, %d calls", err, calls)
	}
}

func TestARefusedConnectionIsAConnectionErrorRetriedEvenForAPOST(t *testing.T) {
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	address := listener.Addr().String()
	listener.Close()
	client := NewClient(WithBaseURL("http://" + address + "/v1"))
	var waits int
	client.sleep = func(context.Context, time.Duration) error { waits++; return nil }
	_, err = client.CreateAlertRule(context.Background(), &AlertRuleCreate{Name: "x"})
	var connection *ConnectionError
	if !errors.As(err, &connection) || waits != 2 {
		t.Fatalf("refused POST: %v after %d waits", err, waits)
	}
}

func TestAnAnswerWithoutAContractBodyIsAnAPIError(t *testing.T) {
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(502)
		_, _ = io.WriteString(w, "<html>bad gateway</html>")
	}))
	defer server.Close()
	err := NewClient(WithBaseURL(server.URL), WithMaxRetries(0)).DeleteWebhook(context.Background(), "wh_1")
	var apiError *APIError
	if !errors.As(err, &apiError) || apiError.StatusCode != 502 || apiError.Type != "api_error" || !strings.Contains(err.Error(), "502") {
		t.Fatalf("502 with HTML: %#v", err)
	}
}

func TestFormBodiesAreFormEncoded(t *testing.T) {
	payload, contentType, err := encodeBody(&OAuthTokenRequest{GrantType: "refresh_token", RefreshToken: Ptr("dbm_ort_x y")}, true)
	if err != nil || contentType != "application/x-www-form-urlencoded" || string(payload) != "grant_type=refresh_token&refresh_token=dbm_ort_x+y" {
		t.Fatalf("%q %q %v", payload, contentType, err)
	}
	payload, _, _ = encodeBody(map[string]interface{}{"n": 2, "ok": true}, true)
	if string(payload) != "n=2&ok=true" {
		t.Fatalf("%q", payload)
	}
}

func TestTheIteratorStaysOnTheAPIsOrigin(t *testing.T) {
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Link", `<http://elsewhere.example/v1/databases?page=2>; rel="next", <http://x/1>; rel="first"`)
		_, _ = io.WriteString(w, `{"data":[{"id":"db_1"}],"pagination":{"total":2,"page":1,"per_page":1}}`)
	}))
	defer server.Close()
	databases := NewClient(WithBaseURL(server.URL+"/v1")).ListDatabasesIter(context.Background(), nil)
	if !databases.Next() || databases.Value().ID != "db_1" {
		t.Fatalf("first item: %v", databases.Err())
	}
	if databases.Next() || databases.Err() == nil || !strings.Contains(databases.Err().Error(), "elsewhere.example") {
		t.Fatalf("followed a Link off the origin: %v", databases.Err())
	}
}

func TestNullableFieldsAreLeftOutSentAsNullOrSentWithAValue(t *testing.T) {
	for _, c := range []struct {
		update DatabaseUpdate
		json   string
	}{
		{DatabaseUpdate{Name: Ptr("a")}, `{"name":"a"}`},
		{DatabaseUpdate{AgentID: Null[string]()}, `{"agent_id":null}`},
		{DatabaseUpdate{AgentID: NotNull("agt_1")}, `{"agent_id":"agt_1"}`},
	} {
		encoded, err := json.Marshal(c.update)
		if err != nil || string(encoded) != c.json {
			t.Errorf("%s, not %s (%v)", encoded, c.json, err)
		}
	}
	var decoded struct{ A, B, C *Nullable[int] }
	if err := json.Unmarshal([]byte(`{"A":null,"B":3}`), &decoded); err != nil || decoded.A != nil || decoded.B.Value != 3 || decoded.B.Null || decoded.C != nil {
		t.Fatalf("%+v %v", decoded, err)
	}
	var direct Nullable[int]
	if err := direct.UnmarshalJSON([]byte("null")); err != nil || !direct.Null {
		t.Fatalf("%+v %v", direct, err)
	}
}

func TestEachContractErrorTypeHasItsGoType(t *testing.T) {
	answer := func(status int, errorType string) *http.Response {
		header := http.Header{"X-Request-Id": {"req_1"}, "Retry-After": {"7"}}
		body := `{"error":{"type":"` + errorType + `","message":"m","param":"p","code":"c"}}`
		return &http.Response{StatusCode: status, Header: header, Body: io.NopCloser(strings.NewReader(body))}
	}
	for _, c := range []struct {
		status    int
		errorType string
		target    interface{}
	}{
		{401, "authentication_error", new(*AuthenticationError)},
		{403, "permission_error", new(*PermissionDeniedError)},
		{404, "not_found", new(*NotFoundError)},
		{409, "conflict", new(*ConflictError)},
		{400, "invalid_request", new(*InvalidRequestError)},
		{429, "rate_limit_exceeded", new(*RateLimitError)},
		{500, "api_error", new(*APIError)},
		{418, "a_type_added_later", new(*APIError)},
	} {
		err := errorFromResponse(answer(c.status, c.errorType))
		details := err.Details()
		if !errors.As(err, c.target) || details.Type != c.errorType || details.StatusCode != c.status || details.Message != "m" || details.Param != "p" || details.Code != "c" || details.RequestID != "req_1" {
			t.Errorf("%s: %#v", c.errorType, err)
		}
	}
	var rateLimited *RateLimitError
	if !errors.As(errorFromResponse(answer(429, "rate_limit_exceeded")), &rateLimited) || rateLimited.RetryAfter != 7*time.Second {
		t.Fatalf("Retry-After: %#v", rateLimited)
	}
}

func TestCancellingTheContextStopsTheWait(t *testing.T) {
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "30")
		w.WriteHeader(429)
		_, _ = io.WriteString(w, `{"error":{"type":"rate_limit_exceeded","message":"slow down"}}`)
	}))
	defer server.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	started := time.Now()
	_, err := NewClient(WithBaseURL(server.URL)).GetCurrentUser(ctx)
	var rateLimited *RateLimitError
	if !errors.As(err, &rateLimited) || time.Since(started) > 5*time.Second {
		t.Fatalf("%v after %v", err, time.Since(started))
	}
}
