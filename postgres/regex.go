package postgres

import (
	"errors"
	"fmt"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// TranslateRegex is the pattern half of PostgreSQL's Dialect.Regex: it
// translates a Go RE2
// pattern, matched case-insensitively as regexp.Compile("(?i)" + pattern)
// does, into a PostgreSQL advanced regular expression (ARE) that matches
// exactly the same strings under ~* (or ~). PostgreSQL's own syntax differs
// from RE2 in ways that either fail loudly (\pL, \z, (?i) after the start)
// or, worse, silently (\b is a backspace there, \y the word boundary), so
// the pattern is parsed with regexp/syntax and the tree printed again in
// ARE terms, leaving nothing to PostgreSQL's reading of RE2 syntax:
//
//   - The ARE starts with the embedded options (?cw): case-sensitive
//     matching (case-insensitivity is spelled out, below, so that it is
//     RE2's simple case folding whatever the database's locale, and so that
//     a (?-i) part stays case-sensitive), and ^ and $ matching at line
//     breaks; RE2's text anchors (^ and $ without (?m), \A, \z) become \A
//     and \Z, which match at the ends of the string only.
//   - Literals are printed as themselves (ASCII letters and digits) or as
//     \uXXXX / \UXXXXXXXX escapes; a case-folded letter becomes the
//     bracket expression of its case variants ([kK\u212a]).
//   - Character classes (\d, \w, [[:alpha:]], \pL, \p{Greek}, negations,
//     their case-folded forms) become bracket expressions of the code
//     point ranges Go's parser resolved them to, so that they mean what
//     they mean in Go's Unicode tables. The NUL character and surrogates,
//     which no PostgreSQL text contains, are left out.
//   - . is [^\n] (or . under (?s)); groups, named or not, become
//     non-capturing groups (captures do not change whether a string
//     matches); repetitions keep their bounds, split into bounded pieces
//     when a bound exceeds PostgreSQL's limit of 255; non-greedy
//     repetitions become greedy ones (greediness does not change whether a
//     string matches, and PostgreSQL's rules for mixed greediness differ
//     from RE2's).
//   - \b and \B become lookaround constraints on RE2's ASCII word
//     characters [0-9A-Za-z_] (PostgreSQL's \y and \Y would also count
//     non-ASCII letters as word characters).
//
// It fails, with a message meant for the client (the caller adds the
// field), when the pattern is not valid RE2 or its translation is larger
// than PostgreSQL is asked to compile (postgresRegexMax bytes).
func TranslateRegex(pattern string) (string, error) {
	re, err := syntax.Parse(pattern, syntax.Perl|syntax.FoldCase)
	if err != nil {
		return "", fmt.Errorf("invalid regular expression: %w", err)
	}
	var b strings.Builder
	b.WriteString("(?cw)")
	if err := areWrite(&b, re); err != nil {
		return "", err
	}
	if b.Len() > postgresRegexMax {
		return "", errors.New("the regular expression is too large for this database (use fewer or smaller Unicode classes)")
	}
	return b.String(), nil
}

// postgresRegexMax bounds the size of a translated pattern: a few dozen
// large Unicode classes, far more than a search filter needs, and small
// enough for PostgreSQL to compile quickly.
const postgresRegexMax = 64 << 10

// areMaxRepeat is PostgreSQL's largest repetition bound (RE_DUP_MAX).
const areMaxRepeat = 255

// areWord is RE2's word character class, for \b and \B.
const areWord = `[0-9A-Za-z_]`

// areNever is an ARE that matches nothing (an empty negative lookahead).
const areNever = `(?!)`

// areWrite prints re in ARE syntax.
func areWrite(b *strings.Builder, re *syntax.Regexp) error {
	switch re.Op {
	case syntax.OpNoMatch:
		b.WriteString(areNever)
	case syntax.OpEmptyMatch:
		b.WriteString(`(?:)`)
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			areLiteral(b, r, re.Flags&syntax.FoldCase != 0)
		}
	case syntax.OpCharClass:
		areClass(b, re.Rune)
	case syntax.OpAnyCharNotNL:
		b.WriteString(`[^\u000a]`)
	case syntax.OpAnyChar:
		b.WriteString(`.`) // no n or p option: . matches a newline too
	case syntax.OpBeginLine:
		b.WriteString(`^`) // option w: also after a newline
	case syntax.OpEndLine:
		b.WriteString(`$`) // option w: also before a newline
	case syntax.OpBeginText:
		b.WriteString(`\A`)
	case syntax.OpEndText:
		b.WriteString(`\Z`)
	case syntax.OpWordBoundary:
		b.WriteString(`(?:(?<!` + areWord + `)(?=` + areWord + `)|(?<=` + areWord + `)(?!` + areWord + `))`)
	case syntax.OpNoWordBoundary:
		b.WriteString(`(?:(?<=` + areWord + `)(?=` + areWord + `)|(?<!` + areWord + `)(?!` + areWord + `))`)
	case syntax.OpCapture: // a group; an alternation prints its own
		if re.Sub[0].Op == syntax.OpAlternate {
			return areWrite(b, re.Sub[0])
		}
		b.WriteString(`(?:`)
		if err := areWrite(b, re.Sub[0]); err != nil {
			return err
		}
		b.WriteString(`)`)
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			if err := areWrite(b, sub); err != nil {
				return err
			}
		}
	case syntax.OpAlternate:
		b.WriteString(`(?:`)
		for i, sub := range re.Sub {
			if i > 0 {
				b.WriteString(`|`)
			}
			if err := areWrite(b, sub); err != nil {
				return err
			}
		}
		b.WriteString(`)`)
	case syntax.OpStar:
		return areRepeat(b, re.Sub[0], 0, -1)
	case syntax.OpPlus:
		return areRepeat(b, re.Sub[0], 1, -1)
	case syntax.OpQuest:
		return areRepeat(b, re.Sub[0], 0, 1)
	case syntax.OpRepeat:
		return areRepeat(b, re.Sub[0], re.Min, re.Max)
	default:
		return fmt.Errorf("%s is not supported on this database", re)
	}
	if b.Len() > postgresRegexMax {
		return errors.New("the regular expression is too large for this database (use fewer or smaller Unicode classes)")
	}
	return nil
}

// areRepeat prints sub{min,max} (max -1: no upper bound) as one or more
// ARE repetitions whose bounds are at most areMaxRepeat: sub{300} is
// sub{255}sub{45}, sub{0,300} is sub{0,255}sub{0,45}, which match the same
// strings.
func areRepeat(b *strings.Builder, sub *syntax.Regexp, lo, hi int) error {
	var atom strings.Builder
	if err := areWrite(&atom, sub); err != nil {
		return err
	}
	a := atom.String()
	if a == areNever { // a constraint takes no quantifier
		if lo == 0 {
			b.WriteString(`(?:)`)
		} else {
			b.WriteString(areNever)
		}
		return nil
	}
	if !areSingleAtom(sub) && sub.Op != syntax.OpCapture && sub.Op != syntax.OpAlternate {
		a = `(?:` + a + `)` // captures and alternations print their group
	}
	piece := func(lo, hi int) {
		b.WriteString(a)
		switch {
		case lo == 0 && hi == -1:
			b.WriteString(`*`)
		case lo == 1 && hi == -1:
			b.WriteString(`+`)
		case lo == 0 && hi == 1:
			b.WriteString(`?`)
		case hi == -1:
			fmt.Fprintf(b, `{%d,}`, lo)
		case lo == hi:
			fmt.Fprintf(b, `{%d}`, lo)
		default:
			fmt.Fprintf(b, `{%d,%d}`, lo, hi)
		}
	}
	if hi != -1 && hi < lo {
		b.WriteString(areNever) // not produced by the parser; never matches
		return nil
	}
	// The mandatory copies, areMaxRepeat at a time.
	for lo > areMaxRepeat {
		piece(areMaxRepeat, areMaxRepeat)
		lo -= areMaxRepeat
		if hi != -1 {
			hi -= areMaxRepeat
		}
	}
	if hi == -1 || hi <= areMaxRepeat {
		piece(lo, hi)
		return nil
	}
	// lo <= 255 < hi: the mandatory copies with some optional ones, then
	// the rest of the optional ones.
	piece(lo, areMaxRepeat)
	for rest := hi - areMaxRepeat; rest > 0; rest -= areMaxRepeat {
		piece(0, min(rest, areMaxRepeat))
	}
	return nil
}

// areSingleAtom reports whether sub prints as one ARE atom that a
// quantifier may follow directly.
func areSingleAtom(sub *syntax.Regexp) bool {
	switch sub.Op {
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return true
	case syntax.OpLiteral:
		return len(sub.Rune) == 1
	}
	return false
}

// areLiteral prints one literal character, with its case variants when
// fold.
func areLiteral(b *strings.Builder, r rune, fold bool) {
	if fold {
		variants := []rune{r}
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			variants = append(variants, f)
		}
		if len(variants) > 1 {
			slices.Sort(variants)
			ranges := make([]rune, 0, 2*len(variants))
			for _, v := range variants {
				ranges = append(ranges, v, v)
			}
			areClass(b, ranges)
			return
		}
	}
	if !areTextRune(r) {
		b.WriteString(areNever)
		return
	}
	areRune(b, r)
}

// areTextRune reports whether a PostgreSQL text can hold r (not NUL, not
// a surrogate, a valid code point).
func areTextRune(r rune) bool {
	return r > 0 && r <= unicode.MaxRune && (r < 0xD800 || r > 0xDFFF)
}

// areRune prints a character: ASCII letters and digits as themselves,
// anything else as a \u or \U escape, which means the same character
// inside and outside a bracket expression.
func areRune(b *strings.Builder, r rune) {
	switch {
	case r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)):
		b.WriteRune(r)
	case r <= 0xFFFF:
		fmt.Fprintf(b, `\u%04x`, r)
	default:
		fmt.Fprintf(b, `\U%08x`, r)
	}
}

// areClass prints a character class given as sorted [lo, hi] pairs (as
// regexp/syntax gives them) as a bracket expression, or its complement
// as a negated one when that is shorter.
func areClass(b *strings.Builder, ranges []rune) {
	// The characters a text may hold: [1, D7FF] and [E000, 10FFFF].
	possible := [][2]rune{{1, 0xD7FF}, {0xE000, unicode.MaxRune}}
	var in [][2]rune
	for i := 0; i+1 < len(ranges); i += 2 {
		for _, p := range possible {
			lo, hi := max(ranges[i], p[0]), min(ranges[i+1], p[1])
			if lo <= hi {
				in = append(in, [2]rune{lo, hi})
			}
		}
	}
	if len(in) == 0 {
		b.WriteString(areNever)
		return
	}
	// The complement within the possible characters.
	var out [][2]rune
	for _, p := range possible {
		next := p[0]
		for _, r := range in {
			if r[1] < p[0] || r[0] > p[1] {
				continue
			}
			if r[0] > next {
				out = append(out, [2]rune{next, r[0] - 1})
			}
			next = r[1] + 1
		}
		if next <= p[1] {
			out = append(out, [2]rune{next, p[1]})
		}
	}
	if len(out) == 0 {
		b.WriteString(`.`)
		return
	}
	b.WriteString(`[`)
	list := in
	if len(out) < len(in) {
		b.WriteString(`^`)
		list = out
	}
	for _, r := range list {
		areRune(b, r[0])
		if r[1] != r[0] {
			if r[1] > r[0]+1 {
				b.WriteString(`-`)
			}
			areRune(b, r[1])
		}
	}
	b.WriteString(`]`)
}
