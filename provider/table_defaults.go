package provider

import "github.com/lakesql/lakesql/internal/schema"

// WithTableDefaults adds the server's default table options
// (Options.TableDefaults: the table-defaults of lakesql's configuration) to
// the options of a new table's schema, for every key the CREATE TABLE did
// not set. CREATE TABLE … LIKE copies its source exactly and gets none.
func (p *Provider) WithTableDefaults(ts *schema.TableSchema) *schema.TableSchema {
	if len(p.opts.TableDefaults) == 0 {
		return ts
	}
	c := *ts
	c.Options = make(schema.Options, len(ts.Options)+len(p.opts.TableDefaults))
	for k, v := range p.opts.TableDefaults {
		c.Options[k] = v
	}
	for k, v := range ts.Options {
		c.Options[k] = v
	}
	return &c
}
