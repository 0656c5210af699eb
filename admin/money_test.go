package admin

import "testing"

func TestFixed(t *testing.T) {
	for _, tc := range []struct {
		amount    int64
		precision int
		want      string
	}{{1050, 2, "10.50"}, {5, 2, "0.05"}, {0, 2, "0.00"}, {-1050, 2, "-10.50"}, {1234, 0, "1234"}, {1, 3, "0.001"}} {
		if got := fixed(tc.amount, tc.precision); got != tc.want {
			t.Errorf("fixed(%d, %d) = %q, want %q", tc.amount, tc.precision, got, tc.want)
		}
	}
}
