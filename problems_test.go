package commerce

import (
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
)

func TestErrorfKeepsTheChain(t *testing.T) {
	err := Errorf(EInternal, "read: %w", io.ErrUnexpectedEOF)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("errors.Is(%v, io.ErrUnexpectedEOF) = false, want true", err)
	}
	if got, want := err.Error(), "internal_error: read: unexpected EOF"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	inner := NewError(EProductNotFound, "p1")
	outer := Errorf(EInternal, "wrap: %w", inner)
	var e *Error
	if !errors.As(outer.Unwrap(), &e) || e.Code != EProductNotFound {
		t.Errorf("the cause of %v is not the product_not_found error", outer)
	}
	if got := ErrorCode(outer); got != EInternal {
		t.Errorf("ErrorCode = %q, want the outer code %q", got, EInternal)
	}
	if plain := Errorf(EValidation, "no cause %d", 1); plain.Unwrap() != nil {
		t.Errorf("Unwrap of an error without %%w = %v, want nil", plain.Unwrap())
	}
}

func TestProblems(t *testing.T) {
	var p Problems
	if p.Err() != nil {
		t.Fatalf("Err of no problems = %v, want nil", p.Err())
	}
	p.Add(Index("items", 2)+".quantity", "must be a positive integer")
	p.Add("limit", "must be between %d and %d", 1, 1000)
	p.AddErr(Invalid("a: x", "b: y"))
	err := p.Err()
	if ErrorCode(err) != EValidation {
		t.Fatalf("code = %q, want validation_error", ErrorCode(err))
	}
	want := []string{"items[2].quantity: must be a positive integer", "limit: must be between 1 and 1000", "a: x", "b: y"}
	got := ProblemsOf(err)
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("problems = %q, want %q", got, want)
	}
}

func TestPatternCheck(t *testing.T) {
	for _, tc := range []struct {
		name, pattern, wantPrefix string
	}{
		{"valid", "^bosch$", ""},
		{"invalid", "(", "must be a valid regular expression"},
		{"too long", strings.Repeat(".*", MaxPatternLen/2) + "x", "must be a regular expression of at most 1000 bytes"},
		{"not UTF-8", "\xff", "must be valid UTF-8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Pattern(tc.pattern).Check()
			if tc.wantPrefix == "" && got != "" || !strings.HasPrefix(got, tc.wantPrefix) {
				t.Errorf("Check(%q) = %q, want prefix %q", tc.pattern, got, tc.wantPrefix)
			}
		})
	}
	re, err := Pattern("^BOSCH").Regexp()
	if err != nil || !re.MatchString("bosch kgn") {
		t.Errorf("Regexp(^BOSCH) = %v, %v; want a case-insensitive match of \"bosch kgn\"", re, err)
	}
}

func TestProblemsCheckPattern(t *testing.T) {
	var p Problems
	good, bad := Pattern("^a"), Pattern("(")
	p.CheckPattern("title", nil)
	p.CheckPattern("title", &good)
	if !p.Empty() {
		t.Fatalf("got %q for an absent and a valid pattern, want nothing", p)
	}
	p.CheckPattern("description", &bad)
	if len(p) != 1 || !strings.HasPrefix(p[0], "description: must be a valid regular expression") {
		t.Errorf("got %q, want one problem naming description", p)
	}
}

func TestKeyIsNFC(t *testing.T) {
	nfc, nfd := "caf\u00e9", "cafe\u0301"
	if nfc == nfd {
		t.Fatal("test strings must differ")
	}
	if Key(nfd) != nfc || Key(nfc) != nfc {
		t.Errorf("Key(%q) = %q, Key(%q) = %q; want both %q", nfd, Key(nfd), nfc, Key(nfc), nfc)
	}
}

func TestKeys(t *testing.T) {
	if got := Keys(nil); got != nil {
		t.Errorf("Keys(nil) = %q, want nil", got)
	}
	if got := Keys([]string{"cafe\u0301", "x"}); !slices.Equal(got, []string{"caf\u00e9", "x"}) {
		t.Errorf("Keys = %q, want each value in NFC", got)
	}
}

func TestEmailKey(t *testing.T) {
	want := "ren\u00e9@example.com"
	for _, in := range []string{want, " Rene\u0301@Example.COM\t", "RENE\u0301@example.com"} {
		if got := EmailKey(in); got != want {
			t.Errorf("EmailKey(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTextProblem(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"plain", "ada@example.com", ""},
		{"empty", "", ""},
		{"unicode", "café ☕", ""},
		{"NUL", "a\x00b", "must not contain a NUL byte"},
		{"NUL and invalid UTF-8", "\xff\x00", "must not contain a NUL byte"},
		{"invalid UTF-8", "a\xffb", "must be valid UTF-8"},
		{"truncated sequence", "caf\xc3", "must be valid UTF-8"},
	} {
		if got := TextProblem(tc.in); got != tc.want {
			t.Errorf("%s: TextProblem(%q) = %q, want %q", tc.name, tc.in, got, tc.want)
		}
	}
}
