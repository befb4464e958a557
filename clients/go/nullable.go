package dbmon

import "encoding/json"

// Nullable is a field that may be left out, sent as null, or sent with a value; the generated
// structs use *Nullable[T] where the API gives null a meaning of its own (null clears a stored
// password, makes an alert rule watch every database, ...). A nil *Nullable leaves the field out.
type Nullable[T any] struct {
	Value T
	Null  bool
}

// Null is a field sent as null.
func Null[T any]() *Nullable[T] { return &Nullable[T]{Null: true} }

// NotNull is a field sent with value.
func NotNull[T any](value T) *Nullable[T] { return &Nullable[T]{Value: value} }

// MarshalJSON writes null or the value.
func (n Nullable[T]) MarshalJSON() ([]byte, error) {
	if n.Null {
		return []byte("null"), nil
	}
	return json.Marshal(n.Value)
}

// UnmarshalJSON reads null or a value.
func (n *Nullable[T]) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		*n = Nullable[T]{Null: true}
		return nil
	}
	n.Null = false
	return json.Unmarshal(data, &n.Value)
}
