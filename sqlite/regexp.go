package sqlite

import (
	"database/sql/driver"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"regexp"
	"regexp/syntax"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"modernc.org/sqlite"

	"github.com/commercekit/commerce/sqldb"
)

func init() {
	// "x REGEXP p" calls regexp(p, x). Patterns are Go RE2, made
	// case-insensitive by the caller (Dialect.Regex); compiled ones are
	// cached. p is the pattern as text, or, bound to the time limit of a
	// RegexView (regexArg.Bind), a blob of the deadline and the pattern:
	// the match then stops at the deadline, within the row.
	sqlite.MustRegisterDeterministicScalarFunction("regexp", 2, func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
		var pat string
		var deadline time.Time
		switch p := args[0].(type) {
		case string:
			pat = p
		case []byte:
			var err error
			if deadline, pat, err = decodeRegexArg(p); err != nil {
				return nil, err
			}
		default:
			return nil, errors.New("regexp: pattern must be text")
		}
		var s string
		switch v := args[1].(type) {
		case string:
			s = v
		case []byte:
			s = string(v)
		case nil:
			return false, nil
		default:
			s = fmt.Sprint(v)
		}
		re, err := compile(pat)
		if err != nil {
			return nil, err
		}
		return re.match(s, deadline)
	})
}

// regexArg is the argument of a REGEXP condition (Dialect.Regex): the
// pattern, with no time limit as a value of its own; in a RegexView it is
// bound to the view's deadline (sqldb.DeadlineArg).
type regexArg string

var _ sqldb.DeadlineArg = regexArg("")

// Value implements driver.Valuer: the pattern, matched without a limit.
func (a regexArg) Value() (driver.Value, error) { return string(a), nil }

// Bind implements sqldb.DeadlineArg: the deadline (Unix nanoseconds, 8
// bytes big-endian) and the pattern, as a blob.
func (a regexArg) Bind(deadline time.Time) any {
	b := make([]byte, 8, 8+len(a))
	binary.BigEndian.PutUint64(b, uint64(deadline.UnixNano()))
	return append(b, a...)
}

func decodeRegexArg(b []byte) (time.Time, string, error) {
	if len(b) < 8 {
		return time.Time{}, "", errors.New("regexp: malformed pattern argument")
	}
	return time.Unix(0, int64(binary.BigEndian.Uint64(b))), string(b[8:]), nil
}

// errMatchTimeout is the error of a match that reached its deadline: its
// message is how Dialect.Classify recognises it in a statement's error
// (SQLite passes a function's error on as text).
var errMatchTimeout = errors.New(matchTimeoutMessage)

const matchTimeoutMessage = "regexp: the match reached the read's time limit"

// isMatchTimeout reports whether a statement failed with errMatchTimeout.
func isMatchTimeout(err error) bool {
	return err != nil && strings.Contains(err.Error(), matchTimeoutMessage)
}

// matchBudget bounds the work of a match between two looks at the clock,
// in steps of Go's matcher (one instruction of the program for one
// character of the text at most): a few milliseconds.
const matchBudget = 1 << 20

// compiled is a pattern compiled, with the size of its program: the most
// instructions a step of the matcher runs for one character of the text.
type compiled struct {
	re    *regexp.Regexp
	insts int
}

// match reports whether s holds a match of the pattern. With a deadline
// (not zero) a match whose work may exceed matchBudget reads s in chunks
// of at most matchBudget steps, looking at the clock between them, and
// stops with errMatchTimeout once the deadline has passed: SQLite's
// interrupt stops a statement only between rows, and one long text with a
// large program (a 1 MiB title against 30 bounded repetitions of a class)
// took 46 s.
func (c *compiled) match(s string, deadline time.Time) (bool, error) {
	if deadline.IsZero() {
		return c.re.MatchString(s), nil
	}
	if !time.Now().Before(deadline) {
		return false, errMatchTimeout
	}
	if len(s) <= matchBudget/c.insts {
		return c.re.MatchString(s), nil
	}
	r := &deadlineReader{s: s, deadline: deadline, every: max(16, matchBudget/c.insts)}
	ok := c.re.MatchReader(r)
	if r.expired {
		return false, errMatchTimeout
	}
	return ok, nil
}

// deadlineReader reads a text rune by rune (io.RuneReader), and ends it
// early (io.EOF, expired) when the deadline has passed, looking at the
// clock every `every` runes.
type deadlineReader struct {
	s        string
	i, n     int
	every    int
	deadline time.Time
	expired  bool
}

// ReadRune implements io.RuneReader.
func (r *deadlineReader) ReadRune() (rune, int, error) {
	if r.i >= len(r.s) || r.expired {
		return 0, 0, io.EOF
	}
	if r.n++; r.n >= r.every {
		r.n = 0
		if !time.Now().Before(r.deadline) {
			r.expired = true
			return 0, 0, io.EOF
		}
	}
	c, size := utf8.DecodeRuneInString(r.s[r.i:])
	r.i += size
	return c, size, nil
}

var (
	reMu    sync.Mutex
	reCache = map[string]*compiled{}
)

func compile(p string) (*compiled, error) {
	reMu.Lock()
	defer reMu.Unlock()
	if c, ok := reCache[p]; ok {
		return c, nil
	}
	re, err := regexp.Compile(p)
	if err != nil {
		return nil, err
	}
	// The program as regexp compiles it (regexp.Compile succeeded, so
	// these do too).
	parsed, err := syntax.Parse(p, syntax.Perl)
	if err != nil {
		return nil, err
	}
	prog, err := syntax.Compile(parsed.Simplify())
	if err != nil {
		return nil, err
	}
	if len(reCache) > 256 {
		clear(reCache)
	}
	c := &compiled{re: re, insts: max(1, len(prog.Inst))}
	reCache[p] = c
	return c, nil
}
