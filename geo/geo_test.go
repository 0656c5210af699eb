package geo

import "testing"

func TestValidCountry(t *testing.T) {
	tests := []struct {
		name string
		code string
		want bool
	}{
		{"US", "US", true},
		{"GB", "GB", true},
		{"ES", "ES", true},
		{"HK without subdivisions", "HK", true},
		{"UK is not ISO", "UK", false},
		{"EU is not a country", "EU", false},
		{"ZZ unassigned", "ZZ", false},
		{"XK user-assigned", "XK", false},
		{"YU withdrawn", "YU", false},
		{"lower case", "us", false},
		{"mixed case", "Us", false},
		{"alpha-3", "USA", false},
		{"numeric", "840", false},
		{"empty", "", false},
		{"padded", " US", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := ValidCountry(tc.code); got != tc.want {
				t.Errorf("ValidCountry(%q) = %v, want %v", tc.code, got, tc.want)
			}
		})
	}
}

func TestValidState(t *testing.T) {
	tests := []struct {
		name           string
		country, state string
		want           bool
	}{
		{"US code", "US", "HI", true},
		{"US name", "US", "Hawaii", true},
		{"US name lower case", "US", "hawaii", true},
		{"US name upper case", "US", "HAWAII", true},
		{"US code lower case", "US", "hi", true},
		{"US full code", "US", "US-HI", true},
		{"US full code lower case", "US", "us-hi", true},
		{"US spaces around", "US", " Hawaii ", true},
		{"US two-word name", "US", "new york", true},
		{"US unknown code", "US", "XX", false},
		{"US other country's full code", "US", "GB-DOR", false},
		{"US state of another country", "US", "Ontario", false},
		{"US empty", "US", "", false},
		{"GB name", "GB", "Dorset", true},
		{"GB code", "GB", "DOR", true},
		{"GB US state", "GB", "HI", false},
		{"ES province name", "ES", "Madrid", true},
		{"ES province code", "ES", "M", true},
		{"ES community code", "ES", "MD", true},
		{"ES accented name", "ES", "Cádiz", true},
		{"ES name without accent", "ES", "cadiz", true},
		{"ES one of two names", "ES", "València", true},
		{"ES other of two names", "ES", "Valencia", true},
		{"CA name", "CA", "Ontario", true},
		{"CA code", "CA", "ON", true},
		{"CA Quebec", "CA", "QC", true},
		{"invalid country", "ZZ", "HI", false},
		{"lower-case country", "us", "HI", false},
		{"UK country", "UK", "Dorset", false},
		{"undivided country any state", "HK", "Kowloon", true},
		{"undivided country blank state", "HK", "  ", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := ValidState(tc.country, tc.state); got != tc.want {
				t.Errorf("ValidState(%q, %q) = %v, want %v", tc.country, tc.state, got, tc.want)
			}
		})
	}
}

func TestSameState(t *testing.T) {
	tests := []struct {
		name    string
		country string
		a, b    string
		want    bool
	}{
		{"name and code", "US", "Hawaii", "HI", true},
		{"code and lower-case name", "US", "HI", "hawaii", true},
		{"full code and name", "US", "US-HI", "Hawaii", true},
		{"same code different case", "US", "hi", "HI", true},
		{"different states", "US", "HI", "Alaska", false},
		{"both invalid", "US", "XX", "XX", false},
		{"one invalid", "US", "HI", "XX", false},
		{"empty", "US", "", "", false},
		{"GB", "GB", "dorset", "DOR", true},
		{"ES province name and code", "ES", "Madrid", "M", true},
		{"ES province and community", "ES", "M", "MD", false},
		{"ES accents", "ES", "Malaga", "MA", true},
		{"ES shared name, province", "ES", "La Rioja", "LO", true},
		{"ES shared name, community", "ES", "La Rioja", "RI", true},
		{"ES province and community codes", "ES", "LO", "RI", false},
		{"ES two names of one", "ES", "Valencia", "València", true},
		{"CA", "CA", "Ontario", "on", true},
		{"invalid country", "ZZ", "HI", "Hawaii", false},
		{"undivided country equal", "HK", "Kowloon", "kowloon", true},
		{"undivided country different", "HK", "Kowloon", "Wan Chai", false},
		{"undivided country empty", "HK", "", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := SameState(tc.country, tc.a, tc.b); got != tc.want {
				t.Errorf("SameState(%q, %q, %q) = %v, want %v", tc.country, tc.a, tc.b, got, tc.want)
			}
		})
	}
}

func BenchmarkValidState(b *testing.B) {
	ValidState("US", "HI")
	for b.Loop() {
		ValidState("US", "hawaii")
		ValidState("ES", "Cádiz")
	}
}
