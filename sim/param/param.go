package param

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"drape/sim/geom"
)

// Field describes one parameter of a struct T. Exactly one of the
// accessors Float, Int, Bool and Vec is set; it returns a pointer to the
// field inside a *T.
type Field[T any] struct {
	Key   string // JSON key in scene files, saved scenes and --state
	Label string // the viewer's label, e.g. "E_x weft"; Key when empty
	Unit  string // SI unit, "" for dimensionless
	Doc   string // one-line description for the table in docs/scenes.md

	// Group is the viewer's sidebar section the field's control sits in
	// ("Material", "Solver", "Adaptivity", ...); "" for no control.
	Group string

	Default float64    // default of a Float or Int field; 0 or 1 for a Bool
	DefVec  [3]float64 // default of a Vec field

	// Min and Max bound the valid values, closed; for a Vec field they
	// bound its Euclidean norm. NaN is never valid. Bool fields ignore
	// them.
	Min, Max float64

	// SliderMin and SliderMax are the viewer slider's range (within
	// [Min, Max]); Log makes it logarithmic; Format is its printf format.
	SliderMin, SliderMax float64
	Log                  bool
	Format               string

	Float func(*T) *float64
	Int   func(*T) *int
	Bool  func(*T) *bool
	Vec   func(*T) *geom.Vec3
}

// Name returns the label shown in the viewer: Label (or Key) and the unit
// in parentheses.
func (f *Field[T]) Name() string {
	n := f.Label
	if n == "" {
		n = f.Key
	}
	if f.Unit != "" {
		n += " (" + f.Unit + ")"
	}
	return n
}

// Table is the schema of a parameter struct T: its fields in the order
// they are encoded and shown.
type Table[T any] []Field[T]

// Field returns the field with the given key, or nil.
func (t Table[T]) Field(key string) *Field[T] {
	for i := range t {
		if t[i].Key == key {
			return &t[i]
		}
	}
	return nil
}

// Keys returns the keys in table order.
func (t Table[T]) Keys() []string {
	keys := make([]string, len(t))
	for i := range t {
		keys[i] = t[i].Key
	}
	return keys
}

// Group returns the fields of one sidebar group, in table order.
func (t Table[T]) Group(g string) []*Field[T] {
	var out []*Field[T]
	for i := range t {
		if t[i].Group == g {
			out = append(out, &t[i])
		}
	}
	return out
}

// SetDefaults writes every field's default into v; fields not in the
// table are left as they are.
func (t Table[T]) SetDefaults(v *T) {
	for i := range t {
		f := &t[i]
		switch {
		case f.Float != nil:
			*f.Float(v) = f.Default
		case f.Int != nil:
			*f.Int(v) = int(f.Default)
		case f.Bool != nil:
			*f.Bool(v) = f.Default != 0
		case f.Vec != nil:
			d := f.DefVec
			*f.Vec(v) = geom.Vec3{X: d[0], Y: d[1], Z: d[2]}
		}
	}
}

// Value returns the field's value in v as a float64: the number, 0 or 1
// for a Bool, the norm for a Vec.
func (f *Field[T]) Value(v *T) float64 {
	switch {
	case f.Float != nil:
		return *f.Float(v)
	case f.Int != nil:
		return float64(*f.Int(v))
	case f.Bool != nil:
		if *f.Bool(v) {
			return 1
		}
		return 0
	case f.Vec != nil:
		return f.Vec(v).Norm()
	}
	return math.NaN()
}

// RangeError is a value outside its field's valid range.
type RangeError struct {
	Key      string
	Unit     string
	Min, Max float64
	Got      float64
	Norm     bool // Got is the norm of a vector
	Int      bool // the field is an integer
}

func (e *RangeError) Error() string {
	key, unit := e.Key, ""
	if e.Norm {
		key = "|" + key + "|"
	}
	if e.Unit != "" {
		unit = " " + e.Unit
	}
	if e.Int {
		return fmt.Sprintf("%s must be in [%.0f, %.0f]%s, got %.0f", key, e.Min, e.Max, unit, e.Got)
	}
	return fmt.Sprintf("%s must be in [%g, %g]%s, got %v", key, e.Min, e.Max, unit, e.Got)
}

// Validate returns a *RangeError for the first field (in table order)
// whose value in v lies outside [Min, Max]; NaN is outside every range.
func (t Table[T]) Validate(v *T) error {
	for i := range t {
		f := &t[i]
		if f.Bool != nil {
			continue
		}
		if x := f.Value(v); !(x >= f.Min && x <= f.Max) {
			return &RangeError{Key: f.Key, Unit: f.Unit, Min: f.Min, Max: f.Max, Got: x, Norm: f.Vec != nil, Int: f.Int != nil}
		}
	}
	return nil
}

// UnknownKeyError is a JSON key the table does not have.
type UnknownKeyError struct {
	Key   string
	Valid []string // the table's keys
}

func (e *UnknownKeyError) Error() string {
	return fmt.Sprintf("unknown key %q (valid keys: %s)", e.Key, strings.Join(e.Valid, ", "))
}

// Decode reads a JSON object into v, overriding the fields whose keys it
// holds and keeping the others. Unknown keys give an *UnknownKeyError;
// a value of the wrong type an error naming its key. It does not check
// ranges (Validate does).
func (t Table[T]) Decode(data []byte, v *T) error {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil {
		return err
	}
	if obj == nil && !bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
		return fmt.Errorf("want an object")
	}
	// Check every key first, in the order of the input, so that the
	// first unknown key is the one reported.
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil { // '{'
		return err
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		if t.Field(key) == nil {
			return &UnknownKeyError{Key: key, Valid: t.Keys()}
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return err
		}
	}
	for i := range t {
		f := &t[i]
		raw, ok := obj[f.Key]
		if !ok {
			continue
		}
		var err error
		switch {
		case f.Float != nil:
			err = json.Unmarshal(raw, f.Float(v))
		case f.Int != nil:
			err = json.Unmarshal(raw, f.Int(v))
		case f.Bool != nil:
			err = json.Unmarshal(raw, f.Bool(v))
		case f.Vec != nil:
			var a [3]float64
			if err = json.Unmarshal(raw, &a); err == nil {
				*f.Vec(v) = geom.Vec3{X: a[0], Y: a[1], Z: a[2]}
			}
		}
		if err != nil {
			return fmt.Errorf("%s: want %s, got %s", f.Key, f.kind(), raw)
		}
	}
	return nil
}

func (f *Field[T]) kind() string {
	switch {
	case f.Int != nil:
		return "an integer"
	case f.Bool != nil:
		return "true or false"
	case f.Vec != nil:
		return "an array of 3 numbers"
	}
	return "a number"
}

// Encode returns v as a JSON object with every field, in table order.
// Floats are written in the shortest form that reads back to the same
// bits (strconv 'g', -1), so Decode(Encode(v)) == v exactly. Non-finite
// values, which JSON cannot hold, are an error naming the key.
func (t Table[T]) Encode(v *T) ([]byte, error) { return t.EncodeKeys(v, nil) }

// EncodeKeys is Encode limited to the fields for which keep(key) is true
// (every field when keep is nil): a saved scene that names a fabric
// preset writes only the keys that differ from it.
func (t Table[T]) EncodeKeys(v *T, keep func(key string) bool) ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	first := true
	num := func(key string, x float64) error {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("%s: %v cannot be written as JSON", key, x)
		}
		b.WriteString(strconv.FormatFloat(x, 'g', -1, 64))
		return nil
	}
	for i := range t {
		f := &t[i]
		if keep != nil && !keep(f.Key) {
			continue
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		b.WriteString(strconv.Quote(f.Key))
		b.WriteByte(':')
		switch {
		case f.Float != nil:
			if err := num(f.Key, *f.Float(v)); err != nil {
				return nil, err
			}
		case f.Int != nil:
			b.WriteString(strconv.Itoa(*f.Int(v)))
		case f.Bool != nil:
			b.WriteString(strconv.FormatBool(*f.Bool(v)))
		case f.Vec != nil:
			p := *f.Vec(v)
			b.WriteByte('[')
			for k, x := range []float64{p.X, p.Y, p.Z} {
				if k > 0 {
					b.WriteByte(',')
				}
				if err := num(f.Key, x); err != nil {
					return nil, err
				}
			}
			b.WriteByte(']')
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// Markdown returns the table as a GitHub Markdown table: key, unit,
// default, valid range and description, one row per field.
func (t Table[T]) Markdown() string {
	var b strings.Builder
	b.WriteString("| key | unit | default | valid range | description |\n")
	b.WriteString("|---|---|---|---|---|\n")
	for i := range t {
		f := &t[i]
		def, rng := strconv.FormatFloat(f.Default, 'g', -1, 64), fmt.Sprintf("[%g, %g]", f.Min, f.Max)
		switch {
		case f.Bool != nil:
			def, rng = strconv.FormatBool(f.Default != 0), "true, false"
		case f.Vec != nil:
			d := f.DefVec
			def = fmt.Sprintf("[%g, %g, %g]", d[0], d[1], d[2])
			rng = "norm in " + rng
		}
		unit := f.Unit
		if unit == "" {
			unit = "–"
		}
		doc := strings.ReplaceAll(f.Doc, "|", `\|`)
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", f.Key, unit, def, rng, doc)
	}
	return b.String()
}
