package procedures_test

import (
	"errors"
	"testing"

	"github.com/lakesql/lakesql/procedures"
)

func s(v string) procedures.Value { return procedures.StringValue(v) }
func n(v string) procedures.Value { return procedures.NumberValue(v) }

func TestBind(t *testing.T) {
	p := procedures.CreateTag // table, tag, snapshot (snapshot_id), time_retained
	pos := func(vs ...procedures.Value) []procedures.Arg {
		var out []procedures.Arg
		for _, v := range vs {
			out = append(out, procedures.Arg{Value: v})
		}
		return out
	}
	named := func(kv ...any) []procedures.Arg {
		var out []procedures.Arg
		for i := 0; i < len(kv); i += 2 {
			out = append(out, procedures.Arg{Name: kv[i].(string), Value: kv[i+1].(procedures.Value)})
		}
		return out
	}
	ok := func(args []procedures.Arg, table, tag string, snap int64, hasSnap bool) {
		t.Helper()
		a, err := p.Bind(args)
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		gt, _ := a.String("table")
		gg, _ := a.String("tag")
		gs, hs := a.Int("snapshot")
		if gt != table || gg != tag || gs != snap || hs != hasSnap {
			t.Errorf("%v: got %q %q %d/%v", args, gt, gg, gs, hs)
		}
	}
	ok(pos(s("db.t"), s("v1")), "db.t", "v1", 0, false)
	ok(pos(s("db.t"), s("v1"), n("3")), "db.t", "v1", 3, true)
	ok(pos(s("db.t"), s("v1"), s("3")), "db.t", "v1", 3, true) // '3' converts, as MySQL would
	ok(named("TAG", s("v1"), "table", s("t")), "t", "v1", 0, false)
	ok(named("table", s("t"), "tag", s("v"), "snapshot_id", n("7")), "t", "v", 7, true) // Flink's name
	ok(append(pos(s("t")), named("snapshot", n("2"), "tag", s("x"))...), "t", "x", 2, true)
	ok(pos(s("t"), s("x"), procedures.NullValue()), "t", "x", 0, false) // NULL = not given

	fail := func(args []procedures.Arg, want error) {
		t.Helper()
		if _, err := p.Bind(args); !errors.Is(err, want) {
			t.Errorf("%v: error %v, want %v", args, err, want)
		}
	}
	fail(pos(s("t")), procedures.ErrArgumentCount)
	fail(pos(s("t"), s("x"), n("1"), s("1 d"), s("extra")), procedures.ErrArgumentCount)
	fail(named("table", s("t"), "tag", procedures.NullValue()), procedures.ErrArgumentCount)
	fail(named("table", s("t"), "tagg", s("x")), procedures.ErrUnknownArgument)
	fail(named("table", s("t"), "tag", s("x"), "snapshot", n("1"), "snapshot_id", n("2")), procedures.ErrUnknownArgument)
	fail(append(named("tag", s("x")), pos(s("t"))...), procedures.ErrUnknownArgument)
	fail(append(pos(s("t")), named("table", s("u"), "tag", s("x"))...), procedures.ErrUnknownArgument)
	fail(pos(s("t"), s("x"), s("abc")), procedures.ErrBadValue)
	fail(pos(s("t"), s("x"), n("1.5")), procedures.ErrBadValue)
	fail(pos(s("t"), procedures.BoolValue(true)), procedures.ErrBadValue)
	if _, err := procedures.ExpireSnapshots.Bind(pos(s("t"), n("9999999999"))); !errors.Is(err, procedures.ErrBadValue) {
		t.Errorf("an INT argument beyond 32 bits: %v", err)
	}
}

func TestParseTableIdent(t *testing.T) {
	for _, c := range []struct {
		in, cur     string
		branchOK    bool
		db, name, b string
		err         error
	}{
		{"db.t", "", false, "db", "t", "", nil},
		{"t", "cur", false, "cur", "t", "", nil},
		{"t$branch_dev", "cur", true, "cur", "t", "dev", nil},
		{"db.t$BRANCH_dev", "", true, "db", "t", "dev", nil},
		{"t$branch_dev", "cur", false, "", "", "", procedures.ErrBadValue},
		{"t$snapshots", "cur", true, "", "", "", procedures.ErrBadValue},
		{"t", "", false, "", "", "", procedures.ErrNoDatabase},
		{"a.b.c", "", false, "", "", "", procedures.ErrBadValue},
		{"db.", "", false, "", "", "", procedures.ErrBadValue},
	} {
		id, err := procedures.ParseTableIdent(c.in, c.cur, c.branchOK)
		if c.err != nil {
			if !errors.Is(err, c.err) {
				t.Errorf("%q: error %v, want %v", c.in, err, c.err)
			}
			continue
		}
		if err != nil || id.DB != c.db || id.Name != c.name || id.Branch != c.b {
			t.Errorf("%q: got %+v, %v", c.in, id, err)
		}
	}
}
