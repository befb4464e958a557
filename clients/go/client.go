// Package dbmon is the Go client of the dbmon HTTP API (/v1): one method per operation of the
// OpenAPI document (generated in zz_generated_*.go), typed errors, retries, paging and webhook
// verification. It uses the standard library only.
package dbmon

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Version is the client's version, sent in the User-Agent header.
const Version = "0.1.0"

// DefaultBaseURL is used when neither WithBaseURL nor DBMON_BASE_URL names the server.
const DefaultBaseURL = "http://127.0.0.1:7117/v1"

// Client calls the dbmon API. It is safe for concurrent use.
type Client struct {
	baseURL      string
	token        string
	httpClient   *http.Client
	maxRetries   int
	maxRetryWait time.Duration
	sleep        func(ctx context.Context, d time.Duration) error

	mu        sync.Mutex
	rateLimit RateLimit
}

// RateLimit holds the X-RateLimit-* headers of the latest answer (zero before the first one).
type RateLimit struct {
	Limit     int
	Remaining int
	Reset     time.Time
}

// Option configures a Client.
type Option func(*Client)

// WithAPIKey authenticates with an API key (default: the DBMON_API_KEY environment variable).
func WithAPIKey(key string) Option { return func(c *Client) { c.token = key } }

// WithAccessToken authenticates with an OAuth access token (default: DBMON_ACCESS_TOKEN).
func WithAccessToken(token string) Option { return func(c *Client) { c.token = token } }

// WithBaseURL sets the API's base URL, ending in /v1 (default: DBMON_BASE_URL, then DefaultBaseURL).
func WithBaseURL(baseURL string) Option {
	return func(c *Client) { c.baseURL = strings.TrimRight(baseURL, "/") }
}

// WithHTTPClient sets the http.Client requests go through (default: one with a 60 s timeout).
func WithHTTPClient(httpClient *http.Client) Option {
	return func(c *Client) { c.httpClient = httpClient }
}

// WithMaxRetries sets how many times a failed request may be retried (default 2; 0 never retries).
func WithMaxRetries(retries int) Option { return func(c *Client) { c.maxRetries = retries } }

// WithMaxRetryWait sets the longest Retry-After the client waits for (default 60 s); a 429 asking
// for longer is returned as a *RateLimitError at once.
func WithMaxRetryWait(wait time.Duration) Option {
	return func(c *Client) { c.maxRetryWait = wait }
}

// NewClient makes a client; options override what the environment provides.
func NewClient(options ...Option) *Client {
	c := &Client{
		baseURL:      strings.TrimRight(firstNonEmpty(os.Getenv("DBMON_BASE_URL"), DefaultBaseURL), "/"),
		token:        firstNonEmpty(os.Getenv("DBMON_API_KEY"), os.Getenv("DBMON_ACCESS_TOKEN")),
		httpClient:   &http.Client{Timeout: 60 * time.Second},
		maxRetries:   2,
		maxRetryWait: 60 * time.Second,
		sleep:        sleepContext,
	}
	for _, option := range options {
		option(c)
	}
	return c
}

// RateLimit returns the X-RateLimit-* values of the latest answer.
func (c *Client) RateLimit() RateLimit {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.rateLimit
}

// request is one API call: a path under the base URL (or an absolute URL, for a Link header's next page).
type request struct {
	method string
	path   string
	query  url.Values
	body   interface{}
	form   bool
}

func (c *Client) do(ctx context.Context, r request, out interface{}) error {
	_, err := c.send(ctx, r, out)
	return err
}

// send runs the request with its retries and decodes a successful JSON answer into out.
func (c *Client) send(ctx context.Context, r request, out interface{}) (http.Header, error) {
	target := r.path
	if !strings.HasPrefix(target, "http://") && !strings.HasPrefix(target, "https://") {
		target = c.baseURL + r.path
		if encoded := r.query.Encode(); encoded != "" {
			target += "?" + encoded
		}
	}
	payload, contentType, err := encodeBody(r.body, r.form)
	if err != nil {
		return nil, err
	}
	for attempt := 0; ; attempt++ {
		response, err := c.attempt(ctx, r.method, target, payload, contentType)
		var failure error
		if err != nil {
			failure = &ConnectionError{Err: err}
		} else {
			c.recordRateLimit(response.Header)
			if response.StatusCode < 300 {
				return response.Header, decodeSuccess(response, out)
			}
			failure = errorFromResponse(response)
		}
		delay, retry := c.retryDelay(attempt, r.method, failure)
		if !retry {
			return nil, failure
		}
		if err := c.sleep(ctx, delay); err != nil {
			return nil, failure
		}
	}
}

func (c *Client) attempt(ctx context.Context, method, target string, payload []byte, contentType string) (*http.Response, error) {
	var body io.Reader
	if payload != nil {
		body = bytes.NewReader(payload)
	}
	httpRequest, err := http.NewRequestWithContext(ctx, method, target, body)
	if err != nil {
		return nil, err
	}
	httpRequest.Header.Set("User-Agent", "dbmon-go/"+Version)
	httpRequest.Header.Set("Accept", "application/json")
	if contentType != "" {
		httpRequest.Header.Set("Content-Type", contentType)
	}
	if c.token != "" {
		httpRequest.Header.Set("Authorization", "Bearer "+c.token)
	}
	return c.httpClient.Do(httpRequest)
}

func (c *Client) recordRateLimit(header http.Header) {
	limit, limitErr := strconv.Atoi(header.Get("X-RateLimit-Limit"))
	remaining, remainingErr := strconv.Atoi(header.Get("X-RateLimit-Remaining"))
	reset, resetErr := strconv.ParseInt(header.Get("X-RateLimit-Reset"), 10, 64)
	if limitErr != nil || remainingErr != nil || resetErr != nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.rateLimit = RateLimit{Limit: limit, Remaining: remaining, Reset: time.Unix(reset, 0)}
}

// encodeBody gives the bytes and content type of a request body: JSON, or the same fields
// form-encoded for the operations that take application/x-www-form-urlencoded.
func encodeBody(body interface{}, form bool) ([]byte, string, error) {
	if body == nil {
		return nil, "", nil
	}
	encoded, err := json.Marshal(body)
	if err != nil {
		return nil, "", err
	}
	if !form {
		return encoded, "application/json", nil
	}
	var fields map[string]interface{}
	if err := json.Unmarshal(encoded, &fields); err != nil {
		return nil, "", err
	}
	values := url.Values{}
	for name, value := range fields {
		if text, isText := value.(string); isText {
			values.Set(name, text)
		} else {
			raw, _ := json.Marshal(value)
			values.Set(name, string(raw))
		}
	}
	return []byte(values.Encode()), "application/x-www-form-urlencoded", nil
}

func decodeSuccess(response *http.Response, out interface{}) error {
	defer response.Body.Close()
	content, err := io.ReadAll(response.Body)
	if err != nil {
		return &ConnectionError{Err: err}
	}
	if out == nil || len(content) == 0 {
		return nil
	}
	return json.Unmarshal(content, out)
}

func sleepContext(ctx context.Context, d time.Duration) error {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}

func firstNonEmpty(values ...string) string {
	for _, value := range values {
		if value != "" {
			return value
		}
	}
	return ""
}

// Ptr returns a pointer to v, for the optional fields of request bodies: dbmon.Ptr(int64(30)).
func Ptr[T any](v T) *T { return &v }
