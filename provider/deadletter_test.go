package provider

import (
	"errors"
	"strings"
	"testing"

	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
)

func TestConvertContainsFailures(t *testing.T) {
	raw := []byte(`{"x":1}`)
	ok := &providerv1.Update{Text: "fine"}
	tests := []struct {
		name    string
		convert func() (*providerv1.Update, error)
		want    *providerv1.Update // nil with wantErr "": nothing
		wantErr string             // the dead letter's error, if one
	}{
		{name: "converted", convert: func() (*providerv1.Update, error) { return ok, nil }, want: ok},
		{name: "nothing to deliver", convert: func() (*providerv1.Update, error) { return nil, nil }},
		{name: "error", convert: func() (*providerv1.Update, error) { return nil, errors.New("bad field") }, wantErr: "bad field"},
		{name: "panic", convert: func() (*providerv1.Update, error) {
			var m map[string]int
			//lint:ignore SA5000 the panic is the test
			m["x"] = 1 // a nil map: panics
			return ok, nil
		}, wantErr: "panic: assignment to entry in nil map"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Convert(raw, tc.convert)
			switch {
			case tc.wantErr == "" && got != tc.want:
				t.Errorf("Convert = %v, want %v", got, tc.want)
			case tc.wantErr != "" && (!strings.HasPrefix(got.GetConversionError(), tc.wantErr) || string(got.GetPayload()) != string(raw) || got.GetReceivedAt() == nil):
				t.Errorf("Convert = %v, want a dead letter of %q with error %q", got, raw, tc.wantErr)
			}
		})
	}
}
