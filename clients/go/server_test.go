package dbmon

// Tests against the real dbmon server the root suite starts (test/clients/go-client.test.ts):
// it passes the server and its fixtures through the environment. Without DBMON_BASE_URL they skip.

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

func fixtureEnv(t *testing.T, name string) string {
	t.Helper()
	if os.Getenv("DBMON_BASE_URL") == "" {
		t.Skip("DBMON_BASE_URL is not set: run through test/clients/go-client.test.ts")
	}
	value := os.Getenv(name)
	if value == "" {
		t.Fatalf("%s is not set", name)
	}
	return value
}

func newDatabase(t *testing.T, name string) *DatabaseCreate {
	port, err := strconv.ParseInt(fixtureEnv(t, "DBMON_TEST_POSTGRES_PORT"), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return &DatabaseCreate{
		Name: name,
		Type: "postgresql",
		Connection: DatabaseCreateConnection{
			Host:     fixtureEnv(t, "DBMON_TEST_POSTGRES_HOST"),
			Port:     &port,
			Database: fixtureEnv(t, "DBMON_TEST_POSTGRES_DATABASE"),
			Username: fixtureEnv(t, "DBMON_TEST_POSTGRES_USERNAME"),
		},
		Monitoring: &DatabaseCreateMonitoring{Enabled: Ptr(false)},
	}
}

func TestEveryOperationOfTheServedDocumentHasAMethod(t *testing.T) {
	fixtureEnv(t, "DBMON_BASE_URL")
	document, err := NewClient().OpenAPIDocument(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var paths map[string]map[string]struct {
		OperationID string `json:"operationId"`
	}
	if err := json.Unmarshal(document["paths"], &paths); err != nil {
		t.Fatal(err)
	}
	methods := map[string]bool{}
	clientType := reflect.TypeOf(&Client{})
	for i := 0; i < clientType.NumMethod(); i++ {
		methods[strings.ToLower(clientType.Method(i).Name)] = true
	}
	count := 0
	for path, operations := range paths {
		if !strings.HasPrefix(path, "/v1/") {
			continue
		}
		for method, operation := range operations {
			count++
			if !methods[strings.ToLower(operation.OperationID)] {
				t.Errorf("%s %s (%s) has no Client method", strings.ToUpper(method), path, operation.OperationID)
			}
		}
	}
	if count < 70 {
		t.Fatalf("the served document has %d /v1 operations; expected the whole API", count)
	}
}

func TestDatabaseLifecycle(t *testing.T) {
	ctx := context.Background()
	client := NewClient()
	created, err := client.CreateDatabase(ctx, newDatabase(t, "go-lifecycle"))
	if err != nil {
		t.Fatal(err)
	}
	if created.Name != "go-lifecycle" || created.Type != "postgresql" || !strings.HasPrefix(created.ID, "db_") {
		t.Fatalf("created %+v", created)
	}
	read, err := client.GetDatabase(ctx, created.ID)
	if err != nil || read.ID != created.ID || read.Connection.Database != fixtureEnv(t, "DBMON_TEST_POSTGRES_DATABASE") {
		t.Fatalf("read %+v, %v", read, err)
	}
	updated, err := client.UpdateDatabase(ctx, created.ID, &DatabaseUpdate{Name: Ptr("go-lifecycle-renamed")})
	if err != nil || updated.Name != "go-lifecycle-renamed" {
		t.Fatalf("updated %+v, %v", updated, err)
	}
	for _, name := range []string{"go-page-a", "go-page-b"} {
		extra, err := client.CreateDatabase(ctx, newDatabase(t, name))
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = client.DeleteDatabase(ctx, extra.ID) }()
	}
	firstPage, err := client.ListDatabases(ctx, &ListDatabasesParams{PerPage: 1})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	databases := client.ListDatabasesIter(ctx, &ListDatabasesParams{PerPage: 1, Type: "postgresql"})
	for databases.Next() {
		seen[databases.Value().ID] = true
	}
	if err := databases.Err(); err != nil {
		t.Fatal(err)
	}
	if int64(len(seen)) != firstPage.Pagination.Total || len(seen) < 4 || !seen[created.ID] || !seen[fixtureEnv(t, "DBMON_TEST_DATABASE_ID")] {
		t.Fatalf("the iterator saw %d databases over pages of one; the list says %d", len(seen), firstPage.Pagination.Total)
	}
	if err := client.DeleteDatabase(ctx, created.ID); err != nil {
		t.Fatal(err)
	}
	_, err = client.GetDatabase(ctx, created.ID)
	var notFound *NotFoundError
	if !errors.As(err, &notFound) || notFound.StatusCode != 404 || notFound.Code != "resource_missing" || notFound.RequestID == "" {
		t.Fatalf("reading a deleted database: %#v", err)
	}
	var anyError Error
	if !errors.As(err, &anyError) || anyError.Details().Type != "not_found" {
		t.Fatalf("a NotFoundError is not an Error: %#v", err)
	}
}

func TestAnInvalidBodyIsAnInvalidRequestError(t *testing.T) {
	invalid := newDatabase(t, "go-invalid")
	invalid.Type = "oracle"
	_, err := NewClient().CreateDatabase(context.Background(), invalid)
	var invalidRequest *InvalidRequestError
	if !errors.As(err, &invalidRequest) || invalidRequest.StatusCode != 400 || invalidRequest.Param != "type" || invalidRequest.Code != "invalid_parameter" || invalidRequest.RequestID == "" {
		t.Fatalf("creating a database of type oracle: %#v", err)
	}
}

func TestAnOAuthAccessTokenAUserGrantedActsWithinItsScopes(t *testing.T) {
	ctx := context.Background()
	application := NewClient(WithAccessToken(fixtureEnv(t, "DBMON_TEST_ACCESS_TOKEN")))
	database, err := application.GetDatabase(ctx, fixtureEnv(t, "DBMON_TEST_DATABASE_ID"))
	if err != nil || database.Name != "monitored" {
		t.Fatalf("GetDatabase with the access token: %+v, %v", database, err)
	}
	// alerts is not a granted scope
	_, err = application.ListAlertRules(ctx, nil)
	var denied *PermissionDeniedError
	if !errors.As(err, &denied) {
		t.Fatalf("ListAlertRules with the access token: %v, want a PermissionDeniedError", err)
	}
}

func TestMetricsOfTheMonitoredDatabase(t *testing.T) {
	ctx := context.Background()
	client := NewClient()
	id := fixtureEnv(t, "DBMON_TEST_DATABASE_ID")
	current, err := client.GetCurrentMetrics(ctx, id, &GetCurrentMetricsParams{Range: "1h"})
	if err != nil {
		t.Fatal(err)
	}
	if current.DatabaseID != id || current.Timestamp == nil || current.Metrics.Connections.Max == nil || *current.Metrics.Connections.Max < 1 {
		t.Fatalf("current metrics %+v", current)
	}
	history, err := client.GetMetricsHistory(ctx, id, &GetMetricsHistoryParams{Range: "1h", Resolution: "raw", Metrics: "connections.max"})
	if err != nil {
		t.Fatal(err)
	}
	if len(history.Data) == 0 || len(history.Data[0].Metrics) == 0 {
		t.Fatalf("history %+v", history)
	}
	if limit := client.RateLimit(); limit.Limit < 1 || limit.Remaining >= limit.Limit || limit.Reset.Before(time.Now()) {
		t.Fatalf("rate limit %+v", limit)
	}
}

func TestCreateAnAlertRuleThenMakeItWatchEveryDatabase(t *testing.T) {
	ctx := context.Background()
	client := NewClient()
	databaseID := fixtureEnv(t, "DBMON_TEST_DATABASE_ID")
	rule, err := client.CreateAlertRule(ctx, &AlertRuleCreate{
		Name:       "Go client: many connections",
		DatabaseID: NotNull(databaseID),
		Metric:     "connections.total",
		Operator:   ">",
		Threshold:  json.RawMessage("50"),
		Severity:   Ptr("warning"),
	})
	if err != nil {
		t.Fatal(err)
	}
	if rule.Metric != "connections.total" || string(rule.Threshold) != "50" || rule.Severity != "warning" || rule.DatabaseID == nil || *rule.DatabaseID != databaseID {
		t.Fatalf("rule %+v", rule)
	}
	everyDatabase, err := client.UpdateAlertRule(ctx, rule.ID, &AlertRuleUpdate{DatabaseID: Null[string]()})
	if err != nil || everyDatabase.DatabaseID != nil || everyDatabase.Name != rule.Name {
		t.Fatalf("database_id: null gave %+v, %v", everyDatabase, err)
	}
}

func TestARealWebhookDeliveryVerifies(t *testing.T) {
	ctx := context.Background()
	client := NewClient()
	fixtureEnv(t, "DBMON_BASE_URL")
	type delivery struct {
		body    []byte
		headers http.Header
	}
	deliveries := make(chan delivery, 4)
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		deliveries <- delivery{body, r.Header.Clone()}
	}))
	defer receiver.Close()
	webhook, err := client.CreateWebhook(ctx, &WebhookCreate{URL: receiver.URL + "/hooks"})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = client.DeleteWebhook(ctx, webhook.ID) }()
	if _, err := client.TestWebhook(ctx, webhook.ID); err != nil {
		t.Fatal(err)
	}
	var received delivery
	select {
	case received = <-deliveries:
	case <-time.After(30 * time.Second):
		t.Fatal("no delivery within 30 s")
	}
	event, err := VerifyWebhook(received.body, received.headers, webhook.Secret, 0)
	if err != nil {
		t.Fatal(err)
	}
	if test, typed := event.(*WebhookTestEvent); !typed || test.Data.Object.ID != webhook.ID || test.Data.Object.URL != webhook.URL {
		t.Fatalf("event %#v", event)
	}
	tampered := append([]byte{}, received.body...)
	tampered[len(tampered)-2] ^= 1
	var refused *WebhookVerificationError
	if _, err := VerifyWebhook(tampered, received.headers, webhook.Secret, 0); !errors.As(err, &refused) {
		t.Fatalf("a tampered delivery verified: %v", err)
	}
}

// Last: ending the rate-limit hour moves the server's clock forward, up to an hour ahead of this
// process, and so the timestamps of its webhook deliveries beyond VerifyWebhook's tolerance.
func TestA429IsRetriedAfterItsRetryAfter(t *testing.T) {
	ctx := context.Background()
	freeKey := fixtureEnv(t, "DBMON_TEST_FREE_API_KEY")
	control, err := http.Post(fixtureEnv(t, "DBMON_TEST_CONTROL_URL")+"/rate-window?ends_in=3", "", nil)
	if err != nil || control.StatusCode != 204 {
		t.Fatalf("control: %v %v", control, err)
	}
	noRetries := NewClient(WithAPIKey(freeKey), WithMaxRetries(0))
	var rateLimited *RateLimitError
	for i := 0; i <= 100 && rateLimited == nil; i++ {
		_, err := noRetries.ListDatabases(ctx, &ListDatabasesParams{PerPage: 1})
		if err != nil && !errors.As(err, &rateLimited) {
			t.Fatal(err)
		}
	}
	if rateLimited == nil || rateLimited.StatusCode != 429 || rateLimited.RetryAfter < 0 || rateLimited.RetryAfter > 3*time.Second {
		t.Fatalf("101 requests of a free key, no retries: %#v", rateLimited)
	}
	if limit := noRetries.RateLimit(); limit.Limit != 100 || limit.Remaining != 0 {
		t.Fatalf("rate limit after the 429: %+v", limit)
	}

	retrying := NewClient(WithAPIKey(freeKey))
	var waits []time.Duration
	retrying.sleep = func(ctx context.Context, d time.Duration) error {
		waits = append(waits, d)
		return sleepContext(ctx, d)
	}
	started := time.Now()
	if _, err := retrying.ListDatabases(ctx, nil); err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(started)
	if len(waits) != 1 || waits[0] < time.Second || elapsed < waits[0] {
		t.Fatalf("the retrying client waited %v (took %v); expected one wait of the 429's Retry-After", waits, elapsed)
	}
	if limit := retrying.RateLimit(); limit.Remaining != 99 {
		t.Fatalf("rate limit in the new window: %+v", limit)
	}
}
