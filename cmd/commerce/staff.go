package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/staff"
)

// stdin is where `staff add` reads the password (a test sets its own).
var stdin io.Reader = os.Stdin

// staffCmd is `commerce staff add --email E`: it creates a staff account
// of the admin app, with the password read from the first line of
// standard input (never a flag, which would show in the process list and
// the shell's history).
func staffCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "add" {
		fmt.Fprintln(stderr, "usage: commerce staff add --email E   (password on standard input)")
		return fmt.Errorf("staff: the only subcommand is add")
	}
	var c config
	fs := newFlagSet("staff add", stderr)
	c.storageFlags(fs)
	email := fs.String("email", "", "the staff member's email (required)")
	if err := parseFlags(fs, args[1:], getenv); err != nil {
		return err
	}
	if strings.TrimSpace(*email) == "" {
		return fmt.Errorf("staff add: --email is required")
	}
	line, err := bufio.NewReader(io.LimitReader(stdin, 4096)).ReadString('\n')
	if err != nil && err != io.EOF {
		return fmt.Errorf("staff add: read the password from standard input: %w", err)
	}
	pw := strings.TrimRight(line, "\r\n")
	db, err := c.openDB(ctx, time.Now)
	if err != nil {
		return err
	}
	defer db.Close()
	st, err := staff.NewService(sqldb.NewStaffStore(db), time.Now).Add(ctx, *email, pw)
	if err != nil {
		return fmt.Errorf("staff add: %w", err)
	}
	_, err = fmt.Fprintf(stdout, "staff %s added: %s\n", st.ID, st.Email)
	return err
}
