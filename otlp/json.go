package otlp

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
)

// OTLP/JSON is protobuf's JSON mapping with OTLP's changes: field names in
// lowerCamelCase, 64-bit integers as numbers or decimal strings, enums as
// numbers (or their names), bytes in base64; unknown fields ignored.
// encoding/json reads the structs' tags; these read the values it cannot.

// maxJSONDepth bounds the nesting of a JSON body: the request's levels,
// then four a nested attribute value (value, kvlist, values, key-value).
const maxJSONDepth = 12 + 4*maxDepth

func readJSON(body []byte, req any) error {
	depth, elements := jsonShape(body)
	switch {
	case depth > maxJSONDepth:
		return errDepth
	case elements > 2*maxElements:
		// A key-value takes two: the comma before it and the one in it.
		return errTooMany
	}
	err := json.Unmarshal(body, req)
	if typeErr := (*json.UnmarshalTypeError)(nil); errors.As(err, &typeErr) {
		return fmt.Errorf("%w: %v", errWrongType, err)
	}
	return err
}

// jsonShape is how deep b's arrays and objects nest, and how many
// elements they can hold at most: every array opened and every comma.
func jsonShape(b []byte) (depth, elements int) {
	level, inString := 0, false
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case inString:
		case c == '{' || c == '[':
			level++
			depth = max(depth, level)
			if c == '[' {
				elements++
			}
		case c == '}' || c == ']':
			level--
		case c == ',':
			elements++
		}
	}
	return depth, elements
}

// numberText is a number's text, from a JSON number or a string holding
// one; ok is false for null, which leaves the field as it is.
func numberText(b []byte) (s string, ok bool, err error) {
	switch {
	case string(b) == "null":
		return "", false, nil
	case b[0] == '"':
		err = json.Unmarshal(b, &s)
		return s, err == nil, err
	}
	return string(b), true, nil
}

// errWrongType: a value of another JSON type than its field's. pdata reads
// many of those as the zero value; runway refuses the export instead.
var errWrongType = errors.New("a value of the wrong type")

func notA(what string, b []byte) error {
	if len(b) > 40 {
		b = append(b[:40:40], "…"...)
	}
	return fmt.Errorf("%w: %s is not %s", errWrongType, b, what)
}

func (n *nanos) UnmarshalJSON(b []byte) error {
	s, ok, err := numberText(b)
	if !ok {
		return err
	}
	x, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return notA("a time in Unix nanoseconds", b)
	}
	*n = nanos(x)
	return nil
}

func (n *integer) UnmarshalJSON(b []byte) error {
	s, ok, err := numberText(b)
	if !ok {
		return err
	}
	if n.v, err = strconv.ParseInt(s, 10, 64); err != nil {
		return notA("an int64", b)
	}
	n.set = true
	return nil
}

func (f *double) UnmarshalJSON(b []byte) error {
	s, ok, err := numberText(b)
	if !ok {
		return err
	}
	if f.v, err = strconv.ParseFloat(s, 64); err != nil {
		return notA("a number", b)
	}
	f.set = true
	return nil
}

func (t *temporality) UnmarshalJSON(b []byte) error {
	if b[0] == '"' {
		var name string
		json.Unmarshal(b, &name) // a string token: it reads
		switch name {
		case "AGGREGATION_TEMPORALITY_UNSPECIFIED":
			*t = 0
		case "AGGREGATION_TEMPORALITY_DELTA":
			*t = 1
		case "AGGREGATION_TEMPORALITY_CUMULATIVE":
			*t = cumulative
		default:
			return notA("an aggregation temporality", b)
		}
		return nil
	}
	if string(b) == "null" {
		return nil
	}
	n, err := strconv.ParseInt(string(b), 10, 32)
	if err != nil {
		return notA("an aggregation temporality", b)
	}
	*t = temporality(n)
	return nil
}

// UnmarshalJSON reads an AnyValue. A null array or kvlist is an empty
// one, as the collector reads it.
func (val *value) UnmarshalJSON(b []byte) error {
	var j struct {
		String *string         `json:"stringValue"`
		Bool   *bool           `json:"boolValue"`
		Int    integer         `json:"intValue"`
		Double double          `json:"doubleValue"`
		Array  json.RawMessage `json:"arrayValue"`
		Kvlist json.RawMessage `json:"kvlistValue"`
		Bytes  []byte          `json:"bytesValue"`
	}
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*val = value{}
	switch {
	case j.String != nil:
		*val = value{kind: valueStr, str: *j.String}
	case j.Bool != nil:
		*val = value{kind: valueBool}
		if *j.Bool {
			val.num = 1
		}
	case j.Int.set:
		*val = value{kind: valueInt, num: uint64(j.Int.v)}
	case j.Double.set:
		*val = value{kind: valueDouble, num: math.Float64bits(j.Double.v)}
	case j.Array != nil:
		var a struct {
			Values []value `json:"values"`
		}
		*val = value{kind: valueArray, list: &valueList{}}
		err := json.Unmarshal(j.Array, &a)
		val.list.array = a.Values
		return err
	case j.Kvlist != nil:
		var m struct {
			Values attrs `json:"values"`
		}
		*val = value{kind: valueMap, list: &valueList{}}
		err := json.Unmarshal(j.Kvlist, &m)
		val.list.kv = m.Values
		return err
	case j.Bytes != nil:
		*val = value{kind: valueBytes, str: string(j.Bytes)}
	}
	return nil
}
