package enumtab_test

import (
	"strings"
	"testing"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/typepb"

	"github.com/chatbus/chatbus/internal/enumtab"
)

type color int

const (
	red color = iota + 1
	green
	blue
)

func (c color) String() string { return [...]string{"?", "red", "green", "blue"}[c] }

// protoColor stands for a proto enum with values 1 and 2 (the test's
// descriptor is google.protobuf.Syntax: SYNTAX_PROTO2 = 0, SYNTAX_PROTO3 =
// 1, SYNTAX_EDITIONS = 2).
type protoColor int32

func TestCheck(t *testing.T) {
	desc := syntaxDescriptor()
	tests := []struct {
		name   string
		pairs  map[color]protoColor
		domain []color
		want   []string // substrings of the error; none: no error
	}{
		{name: "agree", pairs: map[color]protoColor{red: 1, green: 2}, domain: []color{red, green}},
		{name: "a proto value unmapped", pairs: map[color]protoColor{red: 1}, domain: []color{red},
			want: []string{"SYNTAX_EDITIONS (2) has no domain value"}},
		{name: "a domain value unmapped", pairs: map[color]protoColor{red: 1, green: 2}, domain: []color{red, green, blue},
			want: []string{"domain value blue has no google.protobuf.Syntax value"}},
		{name: "a number the proto does not declare", pairs: map[color]protoColor{red: 1, green: 2, blue: 3}, domain: []color{red, green, blue},
			want: []string{"blue maps to 3, which google.protobuf.Syntax does not declare"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := enumtab.Check(enumtab.New(tt.pairs), desc, tt.domain)
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("Check: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("Check found nothing")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Check: %v; want %q in it", err, w)
				}
			}
		})
	}
}

func TestTable(t *testing.T) {
	tab := enumtab.New(map[color]protoColor{red: 1, green: 2})
	if got := tab.Proto(green); got != 2 {
		t.Errorf("Proto(green) = %d", got)
	}
	if got := tab.Proto(blue); got != 0 {
		t.Errorf("Proto(blue) = %d, want the zero value", got)
	}
	if d, ok := tab.Domain(1); !ok || d != red {
		t.Errorf("Domain(1) = %v, %v", d, ok)
	}
	for _, p := range []protoColor{0, 3} {
		if d, ok := tab.Domain(p); ok {
			t.Errorf("Domain(%d) = %v, true", p, d)
		}
	}
}

func TestNewRefusesWhatIsNotOneToOne(t *testing.T) {
	for name, pairs := range map[string]map[color]protoColor{
		"shared proto value": {red: 1, green: 1},
		"zero proto value":   {red: 0},
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("New did not panic")
				}
			}()
			enumtab.New(pairs)
		})
	}
}

func TestValues(t *testing.T) {
	got := enumtab.Values[protoColor](syntaxDescriptor())
	if len(got) != 2 || got[0] != 1 || got[1] != 2 {
		t.Errorf("Values = %v, want [1 2] (the zero value left out)", got)
	}
	if n := len(enumtab.Values[int32](structpb.NullValue(0).Descriptor())); n != 0 {
		t.Errorf("Values of NullValue: %d values, want 0", n)
	}
}

func syntaxDescriptor() protoreflect.EnumDescriptor { return typepb.Syntax(0).Descriptor() }
