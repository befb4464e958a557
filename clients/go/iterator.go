package dbmon

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
)

// Iterator walks every item of a list operation, fetching the next page (the Link header's
// rel="next") when the current one is used up:
//
//	databases := client.ListDatabasesIter(ctx, &dbmon.ListDatabasesParams{PerPage: 50})
//	for databases.Next() {
//		use(databases.Value())
//	}
//	if err := databases.Err(); err != nil { ... }
type Iterator[T any] struct {
	ctx     context.Context
	client  *Client
	next    *request
	page    []T
	current T
	err     error
}

func newIterator[T any](ctx context.Context, client *Client, first request) *Iterator[T] {
	return &Iterator[T]{ctx: ctx, client: client, next: &first}
}

// Next advances to the next item, fetching a page when needed; false at the end or on an error.
func (it *Iterator[T]) Next() bool {
	for len(it.page) == 0 {
		if it.err != nil || it.next == nil {
			return false
		}
		it.fetch()
	}
	it.current, it.page = it.page[0], it.page[1:]
	return true
}

// Value is the item Next advanced to.
func (it *Iterator[T]) Value() T { return it.current }

// Err is the error that ended the iteration, nil when it ran to the end.
func (it *Iterator[T]) Err() error { return it.err }

func (it *Iterator[T]) fetch() {
	var page struct {
		Data []T `json:"data"`
	}
	header, err := it.client.send(it.ctx, *it.next, &page)
	if err != nil {
		it.err = err
		return
	}
	it.page, it.next = page.Data, nil
	if next := nextLink(header); next != "" {
		if err := it.client.sameOrigin(next); err != nil {
			it.err = err
			return
		}
		it.next = &request{method: "GET", path: next}
	}
}

var nextLinkPattern = regexp.MustCompile(`<([^>]*)>\s*;\s*rel="?next"?`)

func nextLink(header http.Header) string {
	for _, value := range header.Values("Link") {
		if match := nextLinkPattern.FindStringSubmatch(value); match != nil {
			return match[1]
		}
	}
	return ""
}

// sameOrigin refuses a next-page URL on another scheme, host or port than the base URL: the
// client's credentials go only to its own server.
func (c *Client) sameOrigin(link string) error {
	base, baseErr := url.Parse(c.baseURL)
	target, targetErr := url.Parse(link)
	if baseErr != nil || targetErr != nil || base.Scheme != target.Scheme || base.Host != target.Host {
		return fmt.Errorf("dbmon: refusing to follow a next-page link off the API's origin: %q", link)
	}
	return nil
}
