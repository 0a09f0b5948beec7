package pyjson

import (
	"math"
	"strconv"
)

// Kind is the JSON type of a value.
type Kind uint8

// The JSON types.
const (
	KindNull Kind = iota
	KindBool
	KindNumber
	KindString
	KindArray
	KindObject
)

func (k Kind) String() string {
	switch k {
	case KindNull:
		return "null"
	case KindBool:
		return "bool"
	case KindNumber:
		return "number"
	case KindString:
		return "string"
	case KindArray:
		return "array"
	default:
		return "object"
	}
}

// Value is a JSON value that keeps object key order and the Python spelling
// of numbers, so it is written back exactly as Python's json.dumps would
// write what json.loads read. The zero Value is null.
type Value struct {
	k   Kind
	b   bool
	s   string // string contents, or the number's Python spelling
	isF bool   // number is a float (has fraction or exponent)
	arr []Value
	obj []Member
}

// Member is one key of an object value.
type Member struct {
	Key   string
	Value Value
}

// Null returns null.
func Null() Value { return Value{k: KindNull} }

// Bool returns true or false.
func Bool(b bool) Value { return Value{k: KindBool, b: b} }

// String returns the string s.
func String(s string) Value { return Value{k: KindString, s: s} }

// Int returns the integer i.
func Int(i int) Value { return Value{k: KindNumber, s: strconv.Itoa(i)} }

// Float returns the float f, spelled as Python's repr(f).
func Float(f float64) Value { return Value{k: KindNumber, s: FloatString(f), isF: true} }

// Object returns an object with the members ms, in their order.
func Object(ms ...Member) Value { return Value{k: KindObject, obj: ms} }

// Array returns an array of vs.
func Array(vs ...Value) Value { return Value{k: KindArray, arr: vs} }

// Pair returns the object member key: v.
func Pair(key string, v Value) Member { return Member{key, v} }

// Strings returns an array of the strings ss.
func Strings(ss []string) Value {
	vs := make([]Value, len(ss))
	for i, s := range ss {
		vs[i] = String(s)
	}
	return Value{k: KindArray, arr: vs}
}

// Kind returns v's JSON type.
func (v Value) Kind() Kind { return v.k }

// Bool returns a boolean's value (false for other kinds).
func (v Value) Bool() bool { return v.k == KindBool && v.b }

// Str returns a string's contents ("" for other kinds).
func (v Value) Str() string {
	if v.k != KindString {
		return ""
	}
	return v.s
}

// IsFloat reports whether v is a number with a fraction or an exponent (a
// Python float, not an int).
func (v Value) IsFloat() bool { return v.k == KindNumber && v.isF }

// Int returns an integer number's value; ok is false for floats, other kinds
// and integers out of int's range.
func (v Value) Int() (i int, ok bool) {
	if v.k != KindNumber || v.isF {
		return 0, false
	}
	i, err := strconv.Atoi(v.s)
	return i, err == nil
}

// Num returns a number's value as float64 (an int or a float; NaN and
// ±Infinity as such); ok is false for other kinds.
func (v Value) Num() (f float64, ok bool) {
	if v.k != KindNumber {
		return 0, false
	}
	switch v.s {
	case "NaN":
		return math.NaN(), true
	case "Infinity":
		return math.Inf(1), true
	case "-Infinity":
		return math.Inf(-1), true
	}
	f, _ = strconv.ParseFloat(v.s, 64)
	return f, true
}

// Elems returns an array's elements (nil for other kinds); the slice is v's
// own.
func (v Value) Elems() []Value { return v.arr }

// Members returns an object's members in order (nil for other kinds). The
// slice is v's own: setting a member's Value through it changes v.
func (v Value) Members() []Member { return v.obj }

// Get returns the member named key of an object value (the last, if the key
// is repeated).
func (v Value) Get(key string) (Value, bool) {
	if v.k != KindObject {
		return Value{}, false
	}
	for i := len(v.obj) - 1; i >= 0; i-- {
		if v.obj[i].Key == key {
			return v.obj[i].Value, true
		}
	}
	return Value{}, false
}

// Field returns the member named key of an object value, or null.
func (v Value) Field(key string) Value {
	x, _ := v.Get(key)
	return x
}

// Set replaces the value of an object's member key in place, or appends the
// member. v must be an object.
func (v *Value) Set(key string, x Value) { v.obj = SetMember(v.obj, key, x) }

// SetMember replaces key's value in ms in place, or appends the member: a
// repeated key keeps its first place and its last value, as a Python dict
// does.
func SetMember(ms []Member, key string, v Value) []Member {
	for i := range ms {
		if ms[i].Key == key {
			ms[i].Value = v
			return ms
		}
	}
	return append(ms, Member{key, v})
}

// Equal reports whether v and o are the same JSON: the same kinds, numbers
// with the same Python spelling, objects with the same keys in the same
// order.
func (v Value) Equal(o Value) bool {
	if v.k != o.k {
		return false
	}
	switch v.k {
	case KindNull:
		return true
	case KindBool:
		return v.b == o.b
	case KindNumber:
		return v.s == o.s && v.isF == o.isF
	case KindString:
		return v.s == o.s
	case KindArray:
		if len(v.arr) != len(o.arr) {
			return false
		}
		for i := range v.arr {
			if !v.arr[i].Equal(o.arr[i]) {
				return false
			}
		}
		return true
	default:
		if len(v.obj) != len(o.obj) {
			return false
		}
		for i := range v.obj {
			if v.obj[i].Key != o.obj[i].Key || !v.obj[i].Value.Equal(o.obj[i].Value) {
				return false
			}
		}
		return true
	}
}
