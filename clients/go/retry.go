package dbmon

import (
	"errors"
	"math/rand"
	"sync"
	"syscall"
	"time"
)

const (
	backoffBase = 500 * time.Millisecond
	backoffCap  = 8 * time.Second
)

// retryDelay decides whether the failure of attempt (0 for the first) is retried, and after how long.
//
// A 429 is retried for any method: the server did not act. A 5xx or a connection failure is
// retried only for idempotent methods, except that any method is retried when the connection was
// refused, since then nothing was sent. The delay is Retry-After exactly when the answer gave
// one, otherwise exponential backoff with full jitter. A Retry-After beyond the client's maximum
// wait is not waited for.
func (c *Client) retryDelay(attempt int, method string, failure error) (time.Duration, bool) {
	if attempt >= c.maxRetries {
		return 0, false
	}
	var answered Error
	var connection *ConnectionError
	switch {
	case errors.As(failure, &answered):
		details := answered.Details()
		if details.StatusCode != 429 && (details.StatusCode < 500 || !idempotent(method)) {
			return 0, false
		}
		if details.retryAfter > c.maxRetryWait {
			return 0, false
		}
		if details.retryAfter >= 0 {
			return details.retryAfter, true
		}
	case errors.As(failure, &connection):
		if !idempotent(method) && !errors.Is(connection.Err, syscall.ECONNREFUSED) {
			return 0, false
		}
	default:
		return 0, false
	}
	return jitteredBackoff(attempt), true
}

func idempotent(method string) bool {
	switch method {
	case "GET", "HEAD", "PUT", "DELETE", "OPTIONS":
		return true
	}
	return false
}

// jitteredBackoff is a random delay between 0 and min(cap, base × 2^attempt) ("full jitter").
func jitteredBackoff(attempt int) time.Duration {
	ceiling := backoffCap
	if attempt < 5 {
		ceiling = backoffBase << uint(attempt)
	}
	jitterMu.Lock()
	defer jitterMu.Unlock()
	return time.Duration(jitter.Int63n(int64(ceiling) + 1))
}

// Go 1.19's global math/rand source starts from the same seed in every process: clients that
// failed together would retry together.
var (
	jitterMu sync.Mutex
	jitter   = rand.New(rand.NewSource(time.Now().UnixNano()))
)
