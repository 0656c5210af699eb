package money

import (
	"encoding/json"
	"testing"
)

func TestPrecision(t *testing.T) {
	for _, tc := range []struct {
		code string
		want int
		ok   bool
	}{{"USD", 2, true}, {"JPY", 0, true}, {"JOD", 3, true}, {"EUR", 2, true}, {"usd", 0, false}, {"ABC", 0, false}, {"US", 0, false}} {
		got, err := Precision(tc.code)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("Precision(%q) = %d, %v; want %d, ok %v", tc.code, got, err, tc.want, tc.ok)
		}
	}
}

func TestParseMajor(t *testing.T) {
	for _, tc := range []struct {
		in   string
		prec int
		want int64
		ok   bool
	}{
		{"577.65", 2, 57765, true}, {"25", 2, 2500, true}, {"25.0", 0, 25, true}, {"0.001", 3, 1, true},
		{"0.001", 2, 0, false}, {"-3.5", 2, -350, true}, {"1e2", 2, 10000, true}, {"1.5e-1", 2, 15, true},
		{"abc", 2, 0, false}, {"99999999999999999999", 2, 0, false}, {"", 2, 0, false}, {"1.2.3", 2, 0, false},
	} {
		got, err := ParseMajor(tc.in, tc.prec)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseMajor(%q, %d) = %d, %v; want %d, ok %v", tc.in, tc.prec, got, err, tc.want, tc.ok)
		}
	}
}

func TestFormatMinor(t *testing.T) {
	for _, tc := range []struct {
		amount int64
		prec   int
		want   string
	}{{57765, 2, "577.65"}, {2500, 2, "25"}, {5, 2, "0.05"}, {-1050, 2, "-10.5"}, {7, 0, "7"}, {1234, 3, "1.234"}, {0, 2, "0"}} {
		if got := FormatMinor(tc.amount, tc.prec); got != tc.want {
			t.Errorf("FormatMinor(%d, %d) = %q, want %q", tc.amount, tc.prec, got, tc.want)
		}
	}
}

func TestMulDiv(t *testing.T) {
	for _, tc := range []struct {
		name    string
		a, b, c int64
		want    int64
	}{
		{"exact", 10000, 21, 100, 2100},
		{"half up", 5, 1, 2, 3},
		{"half away from zero negative", -5, 1, 2, -3},
		{"below half", 4, 1, 3, 1},
		{"negative divisor", 5, 1, -2, -3},
		{"big operands", 1 << 40, 1 << 20, 1 << 30, 1 << 30},
		{"big rounding", 3_000_000_000_001, 1, 2, 1_500_000_000_001},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := MulDiv(tc.a, tc.b, tc.c); got != tc.want {
				t.Errorf("got %d, want %d", got, tc.want)
			}
		})
	}
}

func TestPercent(t *testing.T) {
	r, _ := ParseDecimal("10.5")
	if got := Percent(1000, r); got != 105 {
		t.Errorf("got %d, want 105", got)
	}
	r, _ = ParseDecimal("10")
	if got := Percent(32147, r); got != 3215 {
		t.Errorf("got %d, want 3215", got)
	}
}

func TestAmountForms(t *testing.T) {
	m := Money{Amount: 31147, Currency: "USD", Precision: 2}
	for _, tc := range []struct {
		plain bool
		want  string
	}{{true, `311.47`}, {false, `{"amount":31147,"currency":"USD","precision":2}`}} {
		b, err := json.Marshal(Amount{Money: m, Plain: tc.plain})
		if err != nil || string(b) != tc.want {
			t.Errorf("plain %v: got %s, %v; want %s", tc.plain, b, err, tc.want)
		}
	}
}
