package sqlstore

import "reflect"

// A row struct is an entity as stored: a field per column, in the order
// its statements list the columns, each tagged with the column's name
// (`db:"name"`). Columns, Pointers and Values read it, so the column list,
// the values written and the scan destinations cannot drift apart.

// Columns lists the db tags of row struct T's fields, in order. It panics
// on a field without one: a row struct is fixed at compile time.
func Columns[T any]() []string {
	t := reflect.TypeFor[T]()
	cols := make([]string, t.NumField())
	for i := range cols {
		f := t.Field(i)
		if cols[i] = f.Tag.Get("db"); cols[i] == "" {
			panic("sqlstore: " + t.Name() + "." + f.Name + " has no db tag")
		}
	}
	return cols
}

// Pointers lists pointers to the fields of the row struct row points to,
// in Columns order: a scan's destinations.
func Pointers(row any) []any {
	v := reflect.ValueOf(row).Elem()
	out := make([]any, v.NumField())
	for i := range out {
		out[i] = v.Field(i).Addr().Interface()
	}
	return out
}

// Values lists the fields of the row struct row points to, in Columns
// order: a statement's arguments.
func Values(row any) []any {
	v := reflect.ValueOf(row).Elem()
	out := make([]any, v.NumField())
	for i := range out {
		out[i] = v.Field(i).Interface()
	}
	return out
}
