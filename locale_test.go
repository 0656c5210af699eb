package commerce_test

import (
	"context"
	"slices"
	"testing"

	"github.com/commercekit/commerce"
)

func TestParseLocales(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
		bad  bool
	}{
		{"", []string{"en"}, false},
		{"en", []string{"en"}, false},
		{"es, en ,pt-BR", []string{"es", "en", "pt-BR"}, false},
		{"en,EN", nil, true},
		{"en,e$", nil, true},
		{"english", nil, true},
	} {
		got, err := commerce.ParseLocales(tc.in)
		if (err != nil) != tc.bad || (!tc.bad && !slices.Equal(got, tc.want)) {
			t.Errorf("%q: %v %v", tc.in, got, err)
		}
	}
}

func TestNegotiate(t *testing.T) {
	l := commerce.Locales{"en", "es", "pt-BR"}
	for header, want := range map[string]string{
		"":                           "en",
		"es":                         "es",
		"ES-es":                      "es",
		"fr, es;q=0.5":               "es",
		"es;q=0.4, pt-BR;q=0.8":      "pt-BR",
		"pt":                         "pt-BR",
		"de, *;q=0.1":                "en",
		"es;q=0, en;q=0.1":           "en",
		"es;q=bad, pt-BR;q=0.5":      "pt-BR",
		"de-DE,de;q=0.9,en-US;q=0.8": "en",
	} {
		if got := l.Negotiate(header); got != want {
			t.Errorf("%q: %q, want %q", header, got, want)
		}
	}
	ctx := commerce.WithAcceptLanguage(context.Background(), "es")
	if got, err := l.Resolve(ctx, nil); got != "es" || err != nil {
		t.Errorf("Resolve from the header: %q %v", got, err)
	}
	de := "de"
	if _, err := l.Resolve(ctx, &de); commerce.ErrorCode(err) != commerce.EValidation {
		t.Errorf("Resolve of an unknown locale: %v", err)
	}
	en := "EN"
	if got, err := l.Resolve(ctx, &en); got != "en" || err != nil {
		t.Errorf("Resolve of EN: %q %v", got, err)
	}
}
