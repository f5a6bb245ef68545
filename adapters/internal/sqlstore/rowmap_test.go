package sqlstore

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/domain"
)

// mappings are each entity's way into a row and back, as the stores use
// them.
var mappings = []struct {
	name  string
	cols  []string
	value any // a pointer to a zero domain value
	write func(v any) ([]any, error)
	read  func(Scanner) (any, error)
}{
	{"job", JobCols, &domain.Job{},
		func(v any) ([]any, error) {
			vals, err := JobRow(*v.(*domain.Job))
			if err != nil {
				return nil, err
			}
			return vals[:len(JobCols)], nil // search_text is derived, never read back
		},
		func(sc Scanner) (any, error) { return ScanJob(sc) }},
	{"account", AccountCols, &domain.Account{},
		func(v any) ([]any, error) { return AccountRow(*v.(*domain.Account)), nil },
		func(sc Scanner) (any, error) { return ScanAccount(sc) }},
	{"user", UserCols, &domain.User{},
		func(v any) ([]any, error) { return UserRow(*v.(*domain.User)), nil },
		func(sc Scanner) (any, error) { return ScanUser(sc) }},
	{"api key", APIKeyCols, &domain.APIKey{},
		func(v any) ([]any, error) { return APIKeyRow(*v.(*domain.APIKey)), nil },
		func(sc Scanner) (any, error) { return ScanAPIKey(sc) }},
	{"analysis", AnalysisCols, &domain.Analysis{},
		func(v any) ([]any, error) { return AnalysisRow(*v.(*domain.Analysis)) },
		func(sc Scanner) (any, error) { return ScanAnalysis(sc) }},
	{"checklist", ChecklistCols, &domain.Checklist{},
		func(v any) ([]any, error) { return ChecklistRow(*v.(*domain.Checklist)) },
		func(sc Scanner) (any, error) { return ScanChecklist(sc) }},
	{"tombstone", TombstoneCols, &domain.Tombstone{},
		func(v any) ([]any, error) { return TombstoneRow(*v.(*domain.Tombstone)), nil },
		func(sc Scanner) (any, error) { return ScanTombstone(sc) }},
	{"delivery", DeliveryCols, &domain.Delivery{},
		// payload_of, the last written column, is the store's (ports/porttest's ResendsShareTheirEventsPayload).
		func(v any) ([]any, error) { return DeliveryRow(*v.(*domain.Delivery), "")[:len(DeliveryCols)], nil },
		func(sc Scanner) (any, error) { return ScanDelivery(sc) }},
}

// derived are columns computed from other fields (not stored from one of
// their own), which may rightly be zero: needs_names holds only when an
// answer's reason is that a speaker is not named (domain.NeedsSpeakerNames;
// the store contract's JobList/NeedsSpeakerNames checks it is written).
var derived = map[string]bool{"needs_names": true}

// Every field of every entity is stored and read back: a domain value
// whose every field (nested ones too) is set, each to a value of its own,
// is written as a row with no column left zero, and reads back the same.
// A new field or column whose line is missing from the mapping either way
// fails here, without this test being edited.
func TestRowMappingsComplete(t *testing.T) {
	for _, m := range mappings {
		t.Run(m.name, func(t *testing.T) {
			n := 0
			fillDistinct(reflect.ValueOf(m.value).Elem(), &n)
			want := reflect.ValueOf(m.value).Elem().Interface()
			vals, err := m.write(m.value)
			if err != nil {
				t.Fatal(err)
			}
			for i, v := range vals {
				if derived[m.cols[i]] {
					continue
				}
				if v == nil || reflect.ValueOf(v).IsZero() {
					t.Errorf("%s is written zero (%#v): a field is missing from the row mapping", m.cols[i], v)
				}
			}
			got, err := m.read(written(vals))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("read back\n%+v\nwant\n%+v", got, want)
			}
		})
	}
}

// The filler sets every field, so the test above can fail: a row missing
// a field's column reads back without it.
func TestFillDistinctSetsEveryField(t *testing.T) {
	var j domain.Job
	n := 0
	fillDistinct(reflect.ValueOf(&j).Elem(), &n)
	v := reflect.ValueOf(j)
	for i := range v.NumField() {
		if v.Field(i).IsZero() {
			t.Errorf("%s left zero", v.Type().Field(i).Name)
		}
	}
	var r jobRow
	row, err := toJobRow(j)
	if err != nil {
		t.Fatal(err)
	}
	r.Filename = row.Filename // a row that forgot every column but one
	if back, _ := toDomainJob(r); reflect.DeepEqual(back, j) {
		t.Error("a row without most columns reads back as the job")
	}
}

// An absent JSON value or payload is NULL, and reads back absent.
func TestAbsentValuesAreNull(t *testing.T) {
	at := time.UnixMilli(1_700_000_000_123).UTC()
	j := domain.Job{ID: "doc", CreatedAt: at, UpdatedAt: at, UploadExpiresAt: at}
	vals, err := JobRow(j)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range JobCols {
		switch c {
		case "metadata", "audio", "segments", "speakers":
			if p := vals[i].(*string); p != nil {
				t.Errorf("%s written as %q, want NULL", c, *p)
			}
		}
	}
	if got, err := ScanJob(written(vals[:len(JobCols)])); err != nil || !reflect.DeepEqual(got, j) {
		t.Errorf("job read back %+v, %v; want %+v", got, err, j)
	}
	for _, payload := range [][]byte{nil, {}} {
		d := domain.Delivery{ID: "d", CreatedAt: at, Payload: payload}
		vals := DeliveryRow(d, "")[:len(DeliveryCols)]
		if p := vals[6].([]byte); (p == nil) != (payload == nil) {
			t.Errorf("payload %#v written as %#v", payload, p)
		}
		if got, err := ScanDelivery(written(vals)); err != nil || !reflect.DeepEqual(got, d) {
			t.Errorf("delivery read back %+v, %v; want %+v", got, err, d)
		}
	}
}

// fillDistinct sets v and everything in it to non-zero values, each one
// of its own (counted by n): times in whole milliseconds, as stored; raw
// JSON a JSON object.
func fillDistinct(v reflect.Value, n *int) {
	*n++
	switch v.Type() {
	case reflect.TypeFor[time.Time]():
		v.Set(reflect.ValueOf(time.UnixMilli(1_700_000_000_000 + int64(*n)*1001).UTC()))
		return
	case reflect.TypeFor[json.RawMessage]():
		v.Set(reflect.ValueOf(json.RawMessage(fmt.Sprintf(`{"k":%d}`, *n))))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(fmt.Sprintf("v%d", *n))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(*n))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(*n % 200))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(float64(*n) + 0.5)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fillDistinct(v.Elem(), n)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fillDistinct(v.Index(0), n)
	case reflect.Map:
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fillDistinct(k, n)
		fillDistinct(e, n)
		v.Set(reflect.MakeMap(v.Type()))
		v.SetMapIndex(k, e)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fillDistinct(v.Field(i), n)
			}
		}
	default:
		panic("fillDistinct: no value for " + v.Type().String())
	}
}
