// Package enumtab owns the one way an enum crosses from one set to another
// in chatbus: from a domain type to a proto enum (chatbus.v1 or
// chatbus.provider.v1) or between the two proto packages. The crossing is an
// explicit table, never a cast on "the values mirror", and Check compares a
// table with the proto enum's descriptor, so a value added on one side
// without its counterpart fails a test instead of crossing as a wrong or
// unknown number.
//
// A leaf: it imports nothing of this module, so the supervisor, the
// provider SDK and the providers may all use it.
package enumtab

import (
	"fmt"
	"slices"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// Table maps the values of a domain enum D one-to-one onto the values of a
// proto enum P. The proto's zero value (…_UNSPECIFIED) is never in a table:
// it is what a domain value outside the table maps to.
type Table[D comparable, P ~int32] struct {
	to   map[D]P
	from map[P]D
}

// New builds a table from its pairs. It panics if two domain values share
// a proto value or a pair maps to the proto's zero value: a table is
// written once, at package initialisation, and must be one-to-one.
func New[D comparable, P ~int32](pairs map[D]P) Table[D, P] {
	t := Table[D, P]{to: make(map[D]P, len(pairs)), from: make(map[P]D, len(pairs))}
	for d, p := range pairs {
		if p == 0 {
			panic(fmt.Sprintf("enumtab: %v maps to the proto's zero value", d))
		}
		if prev, dup := t.from[p]; dup {
			panic(fmt.Sprintf("enumtab: %v and %v both map to %d", prev, d, p))
		}
		t.to[d], t.from[p] = p, d
	}
	return t
}

// Proto returns d's proto value, or the zero value (…_UNSPECIFIED) for a
// value the table does not hold.
func (t Table[D, P]) Proto(d D) P { return t.to[d] }

// Domain returns p's domain value; ok is false for the zero value and for a
// value the table does not hold (e.g. one a newer peer sent).
func (t Table[D, P]) Domain(p P) (d D, ok bool) {
	d, ok = t.from[p]
	return d, ok
}

// Values returns the values of an enum descriptor other than its zero
// value, as E, in declaration order.
func Values[E ~int32](desc protoreflect.EnumDescriptor) []E {
	vals := desc.Values()
	out := make([]E, 0, vals.Len())
	for i := range vals.Len() {
		if n := vals.Get(i).Number(); n != 0 {
			out = append(out, E(n))
		}
	}
	return out
}

// Check reports how t and the proto enum desc disagree, nil if they agree:
// a value of desc (other than its zero value) that no domain value maps to,
// a proto value in t that desc does not declare, and a value of domain (the
// domain type's full list of values) that t does not map. The tests of the
// package that owns a table call it.
func Check[D comparable, P ~int32](t Table[D, P], desc protoreflect.EnumDescriptor, domain []D) error {
	var errs []string
	for _, p := range Values[P](desc) {
		if _, ok := t.from[p]; !ok {
			errs = append(errs, fmt.Sprintf("%s (%d) has no domain value", desc.Values().ByNumber(protoreflect.EnumNumber(p)).Name(), p))
		}
	}
	for p, d := range t.from {
		if desc.Values().ByNumber(protoreflect.EnumNumber(p)) == nil {
			errs = append(errs, fmt.Sprintf("%v maps to %d, which %s does not declare", d, p, desc.FullName()))
		}
	}
	for _, d := range domain {
		if _, ok := t.to[d]; !ok {
			errs = append(errs, fmt.Sprintf("domain value %v has no %s value", d, desc.FullName()))
		}
	}
	if len(errs) == 0 {
		return nil
	}
	slices.Sort(errs)
	return fmt.Errorf("enum table and %s disagree: %s", desc.FullName(), strings.Join(errs, "; "))
}

// Name is v's name without prefix ("" for the zero value): how a reason
// enum travels as a google.rpc.ErrorInfo reason ("TARGET_GONE" for
// ERROR_REASON_TARGET_GONE).
func Name[P interface {
	~int32
	String() string
}](v P, prefix string) string {
	if v == 0 {
		return ""
	}
	return strings.TrimPrefix(v.String(), prefix)
}

// Parse reads a name Name gave, with the enum's values (its generated
// _value map); the zero value for a name this build does not know.
func Parse[P ~int32](name, prefix string, values map[string]int32) P {
	if name == "" {
		return 0
	}
	return P(values[prefix+name])
}
