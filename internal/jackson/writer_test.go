package jackson_test

import (
	"testing"

	"github.com/lakesql/lakesql/internal/jackson"
)

// TestWriterForms: Jackson's pretty and compact forms, empty containers
// and string escapes, as Paimon's JsonSerdeUtil writes them.
func TestWriterForms(t *testing.T) {
	w := jackson.New()
	w.BeginObject()
	w.Field("id")
	w.Int(-3)
	w.Field("s")
	w.String("a\"\\\b\t\n\f\r\x01é")
	w.Field("empty")
	w.BeginObject()
	w.EndObject()
	w.Field("arr")
	w.BeginArray()
	w.Int(1)
	w.BeginObject()
	w.Field("k")
	w.Raw("null")
	w.EndObject()
	w.EndArray()
	w.Field("none")
	w.BeginArray()
	w.EndArray()
	w.EndObject()
	want := "{\n  \"id\" : -3,\n  \"s\" : \"a\\\"\\\\\\b\\t\\n\\f\\r\\u0001é\",\n  \"empty\" : { },\n" +
		"  \"arr\" : [ 1, {\n    \"k\" : null\n  } ],\n  \"none\" : [ ]\n}"
	if got := string(w.Bytes()); got != want {
		t.Errorf("pretty:\n%s\nwant\n%s", got, want)
	}
	c := jackson.NewCompact()
	c.BeginObject()
	c.Field("a")
	c.BeginArray()
	c.String("x")
	c.Int(2)
	c.EndArray()
	c.EndObject()
	if got := string(c.Bytes()); got != `{"a":["x",2]}` {
		t.Errorf("compact: %s", got)
	}
	if got := string(jackson.AppendString(nil, "\xff")); got != "\"\uFFFD\"" {
		t.Errorf("invalid UTF-8: %q", got)
	}
}
