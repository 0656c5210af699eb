// Package geo validates the countries and states of addresses and shipping
// locations: countries are ISO 3166-1 alpha-2 codes, states ISO 3166-2
// subdivisions of their country. The data is the ISO 3166-2 list (from
// Debian's iso-codes) shipped by github.com/biter777/countries; the lookup
// tables are built once, on first use.
//
// A state may be given as its code without the country prefix ("HI",
// "DOR"), as its full code ("US-HI"), or by its name ("Hawaii", "Dorset").
// Codes and names are matched ignoring case, surrounding spaces and
// diacritics ("cadiz" is "Cádiz"); a name made of alternatives
// ("Valencia / València") matches each of them. A string that is the code of
// one subdivision is that subdivision, even when it is also the name of
// another; a name shared by two subdivisions (Spain's province and community
// "La Rioja") denotes both.
//
// A country that ISO 3166-2 does not divide (HK, MO, GI, PR, ...) has no
// state to check against, and an address there must still give one: for
// such a country any non-blank state is valid, and two states are the same
// when they are equal ignoring case, spaces and diacritics.
package geo

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/biter777/countries"
	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

// notISO are codes the library knows that ISO 3166-1 does not assign today:
// withdrawn ones (Netherlands Antilles, Yugoslavia) and Kosovo's
// user-assigned XK.
var notISO = map[string]bool{"AN": true, "YU": true, "XK": true}

// country holds the subdivisions of one country, keyed by folded code (the
// part after "CC-") and by folded name.
type country struct {
	alpha2 string
	codes  map[string]string
	names  map[string][]string
}

// index maps each ISO 3166-1 alpha-2 code to its country's subdivisions.
var index = sync.OnceValue(func() map[string]*country {
	m := make(map[string]*country)
	for _, c := range countries.All() {
		a2 := c.Alpha2()
		if len(a2) != 2 || notISO[a2] {
			continue
		}
		m[a2] = &country{alpha2: a2, codes: map[string]string{}, names: map[string][]string{}}
	}
	for _, s := range countries.AllSubdivisions() {
		cc, code, ok := strings.Cut(string(s), "-")
		c := m[cc]
		if !ok || c == nil {
			continue
		}
		c.codes[fold(code)] = code
		for _, name := range strings.Split(s.String(), " / ") {
			k := fold(name)
			c.names[k] = append(c.names[k], code)
		}
	}
	return m
})

// ValidCountry reports whether code is an ISO 3166-1 alpha-2 country code,
// in upper case ("GB", not "gb" nor "UK").
func ValidCountry(code string) bool {
	_, ok := index()[code]
	return ok
}

// ValidState reports whether state denotes a subdivision of the country, as
// the package documentation describes. It is false for an invalid country.
func ValidState(countryCode, state string) bool {
	c, ok := index()[countryCode]
	if !ok {
		return false
	}
	if len(c.codes) == 0 {
		return fold(state) != ""
	}
	return len(c.resolve(state)) > 0
}

// SameState reports whether the states a and b, each a code or a name in any
// case, denote the same subdivision of the country ("Hawaii" and "HI"). It
// is false when either is not a valid state of the country.
func SameState(countryCode, a, b string) bool {
	c, ok := index()[countryCode]
	if !ok {
		return false
	}
	if len(c.codes) == 0 {
		ka := fold(a)
		return ka != "" && ka == fold(b)
	}
	for _, x := range c.resolve(a) {
		for _, y := range c.resolve(b) {
			if x == y {
				return true
			}
		}
	}
	return false
}

// resolve returns the codes of the subdivisions state denotes: the one whose
// code it is, else those whose name it is.
func (c *country) resolve(state string) []string {
	k := fold(state)
	if rest, ok := strings.CutPrefix(k, strings.ToLower(c.alpha2)+"-"); ok {
		k = rest
	}
	if code, ok := c.codes[k]; ok {
		return []string{code}
	}
	return c.names[k]
}

// fold returns s trimmed, without diacritics and in lower case: the key
// codes and names are compared by.
func fold(s string) string {
	s = strings.TrimSpace(s)
	if !isASCII(s) {
		// A transformer keeps state, so each call builds its own.
		t := transform.Chain(norm.NFD, runes.Remove(runes.In(unicode.Mn)), norm.NFC)
		if r, _, err := transform.String(t, s); err == nil {
			s = r
		}
	}
	return strings.ToLower(s)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
