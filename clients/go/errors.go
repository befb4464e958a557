package dbmon

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"
)

// Error is what every error the API answered with implements; use errors.As with a *Error target
// for any of them, or with the concrete type (*NotFoundError, *RateLimitError, ...) for one kind.
type Error interface {
	error
	Details() *ErrorDetails
}

// ErrorDetails is the contract's error body with the answer's status and X-Request-Id.
type ErrorDetails struct {
	// Type is the contract's error type: invalid_request, not_found, rate_limit_exceeded, ...
	Type    string
	Message string
	// Param names the parameter at fault, when there is one.
	Param string
	// Code is the contract's stable error code, when there is one.
	Code       string
	StatusCode int
	RequestID  string
	// retryAfter is the answer's Retry-After, -1 without one.
	retryAfter time.Duration
}

// Details returns the error's details.
func (e *ErrorDetails) Details() *ErrorDetails { return e }

func (e *ErrorDetails) Error() string {
	text := fmt.Sprintf("dbmon: %d %s", e.StatusCode, e.Type)
	if e.Code != "" {
		text += " (" + e.Code + ")"
	}
	text += ": " + e.Message
	if e.Param != "" {
		text += " [param " + e.Param + "]"
	}
	if e.RequestID != "" {
		text += " [request " + e.RequestID + "]"
	}
	return text
}

// AuthenticationError: authentication_error (401), the credentials are missing or not accepted.
type AuthenticationError struct{ ErrorDetails }

// PermissionDeniedError: permission_error (403), the credentials may not do this.
type PermissionDeniedError struct{ ErrorDetails }

// NotFoundError: not_found (404).
type NotFoundError struct{ ErrorDetails }

// ConflictError: conflict (409), the resource's state refuses the request.
type ConflictError struct{ ErrorDetails }

// InvalidRequestError: invalid_request (400), a parameter or the body is wrong.
type InvalidRequestError struct{ ErrorDetails }

// RateLimitError: rate_limit_exceeded (429); RetryAfter is when the server accepts requests
// again (-1 when the answer did not say).
type RateLimitError struct {
	ErrorDetails
	RetryAfter time.Duration
}

// APIError: api_error and any error type this client does not know.
type APIError struct{ ErrorDetails }

// ConnectionError: the request got no answer (refused, reset, timed out, unreadable).
type ConnectionError struct{ Err error }

func (e *ConnectionError) Error() string { return "dbmon: connection failed: " + e.Err.Error() }

// Unwrap returns the transport's error.
func (e *ConnectionError) Unwrap() error { return e.Err }

// errorFromResponse reads an error answer into the error type of its contract type.
func errorFromResponse(response *http.Response) Error {
	defer response.Body.Close()
	var body ErrorBody
	content, _ := io.ReadAll(response.Body)
	details := ErrorDetails{StatusCode: response.StatusCode, RequestID: response.Header.Get("X-Request-Id"), retryAfter: retryAfter(response.Header)}
	if json.Unmarshal(content, &body) == nil && body.Error.Type != "" {
		details.Type, details.Message = body.Error.Type, body.Error.Message
		details.Param, details.Code = valueOf(body.Error.Param), valueOf(body.Error.Code)
	} else {
		details.Type, details.Message = "api_error", fmt.Sprintf("HTTP %d without a contract error body", response.StatusCode)
	}
	switch details.Type {
	case "authentication_error":
		return &AuthenticationError{details}
	case "permission_error":
		return &PermissionDeniedError{details}
	case "not_found":
		return &NotFoundError{details}
	case "conflict":
		return &ConflictError{details}
	case "invalid_request":
		return &InvalidRequestError{details}
	case "rate_limit_exceeded":
		return &RateLimitError{ErrorDetails: details, RetryAfter: details.retryAfter}
	default:
		return &APIError{details}
	}
}

// retryAfter reads Retry-After in seconds; -1 when absent or unreadable.
func retryAfter(header http.Header) time.Duration {
	seconds, err := strconv.Atoi(header.Get("Retry-After"))
	if err != nil || seconds < 0 {
		return -1
	}
	return time.Duration(seconds) * time.Second
}

func valueOf(text *string) string {
	if text == nil {
		return ""
	}
	return *text
}
