package schema

import "github.com/lakesql/lakesql/internal/jackson"

// jacksonWriter is the one Jackson writer (package jackson) with the
// encoders of schema files and data types.
type jacksonWriter struct{ *jackson.Writer }

// node writes a parsed JSON value (used for unknown fields kept on rewrite).
func (w *jacksonWriter) node(n *jsonNode) {
	switch n.kind {
	case jsonNull:
		w.Raw("null")
	case jsonBool:
		if n.b {
			w.Raw("true")
		} else {
			w.Raw("false")
		}
	case jsonNumber:
		w.Raw(n.str)
	case jsonString:
		w.String(n.str)
	case jsonArray:
		w.BeginArray()
		for _, e := range n.arr {
			w.node(e)
		}
		w.EndArray()
	case jsonObject:
		w.BeginObject()
		for i, k := range n.keys {
			w.Field(k)
			w.node(n.vals[i])
		}
		w.EndObject()
	}
}
