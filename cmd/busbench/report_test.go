//go:build linux

package main

import (
	"testing"
	"time"
)

func TestTarget(t *testing.T) {
	tests := []struct {
		name     string
		t        target
		v, ratio *float64
		want     *bool
		str      string
	}{
		{name: "max met", t: target{Max: float64(500 * time.Microsecond)}, v: fp(4e5), want: ptr(true), str: "≤ 0.500 ms"},
		{name: "max missed", t: target{Max: float64(500 * time.Microsecond)}, v: fp(6e5), want: ptr(false), str: "≤ 0.500 ms"},
		{name: "min", t: target{Min: 100_000}, v: fp(50_000), want: ptr(false), str: "≥ 100.0k/s"},
		{name: "ratio max", t: target{RatioMax: 2}, ratio: fp(1.5), want: ptr(true), str: "≤ 2× baseline"},
		{name: "ratio min", t: target{RatioMin: 0.8}, ratio: fp(0.79), want: ptr(false), str: "≥ 0.8× baseline"},
		{name: "no value", t: target{Max: 1}, want: nil, str: "≤ 0.00 µs"},
		{name: "no target", t: target{}, v: fp(1), want: nil, str: ""},
		{name: "both met", t: target{Max: float64(300 * time.Microsecond), RatioMax: 2.5}, v: fp(2e5), ratio: fp(2), want: ptr(true), str: "≤ 0.300 ms and ≤ 2.5× baseline"},
		{name: "value met, ratio missed", t: target{Max: float64(300 * time.Microsecond), RatioMax: 2.5}, v: fp(2e5), ratio: fp(3), want: ptr(false), str: "≤ 0.300 ms and ≤ 2.5× baseline"},
		{name: "both, no baseline", t: target{Max: float64(300 * time.Microsecond), RatioMax: 2.5}, v: fp(2e5), want: nil, str: "≤ 0.300 ms and ≤ 2.5× baseline"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.t.met(tt.v, tt.ratio)
			if (got == nil) != (tt.want == nil) || (got != nil && *got != *tt.want) {
				t.Errorf("met = %v, want %v", deref(got), deref(tt.want))
			}
			u := unitDuration
			if tt.t.Min != 0 {
				u = unitRate
			}
			if s := tt.t.String(u); s != tt.str {
				t.Errorf("String = %q, want %q", s, tt.str)
			}
		})
	}
}

func TestFormat(t *testing.T) {
	tests := []struct {
		name string
		u    unit
		v    float64
		want string
	}{
		{name: "sub-ms", u: unitDuration, v: 250e3, want: "0.250 ms"},
		{name: "µs", u: unitDuration, v: 2345, want: "2.35 µs"},
		{name: "negative ms", u: unitDuration, v: -1.5e6, want: "-1.50 ms"},
		{name: "ms", u: unitDuration, v: 12.345e6, want: "12.35 ms"},
		{name: "rate k", u: unitRate, v: 24_700, want: "24.7k/s"},
		{name: "rate M", u: unitRate, v: 1.5e6, want: "1.50M/s"},
		{name: "KiB", u: unitBytes, v: 80 * 1024, want: "80.0 KiB"},
		{name: "MiB", u: unitBytes, v: 863 << 20, want: "863 MiB"},
		{name: "percent", u: unitPercent, v: 12.34, want: "12.3 %"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := format(tt.u, tt.v); got != tt.want {
				t.Errorf("format = %q, want %q", got, tt.want)
			}
		})
	}
}

func ptr(b bool) *bool { return &b }

func deref(b *bool) any {
	if b == nil {
		return nil
	}
	return *b
}
