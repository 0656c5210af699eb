package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/commercekit/commerce/audit"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/staff"
)

// stdin is where `staff add` and `staff password` read the password (a
// test sets its own).
var stdin io.Reader = os.Stdin

const staffUsage = `usage: commerce staff add --email E [--role R]   (password on standard input)
       commerce staff list
       commerce staff remove --email E
       commerce staff disable --email E [--enable]
       commerce staff password --email E               (password on standard input)
roles: owner, admin, catalog, orders, support (the first member added is an owner)`

// staffCmd is `commerce staff add|list|remove|disable|password`
// (docs/api.md section 28): it manages the admin app's staff accounts.
// Passwords are read from the first line of standard input (never a
// flag, which would show in the process list and the shell's history).
// Its changes are in the audit log under the actor "cli" as an owner.
func staffCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprintln(stderr, staffUsage)
		return fmt.Errorf("staff: a subcommand is required (add, list, remove, disable, password)")
	}
	sub := args[0]
	switch sub {
	case "add", "list", "remove", "disable", "password":
	default:
		fmt.Fprintln(stderr, staffUsage)
		return fmt.Errorf("staff: unknown subcommand %q", sub)
	}
	var c config
	fs := newFlagSet("staff "+sub, stderr)
	c.storageFlags(fs)
	var email, role *string
	var enable *bool
	if sub != "list" {
		email = fs.String("email", "", "the staff member's email (required)")
	}
	if sub == "add" {
		role = fs.String("role", "admin", "owner, admin, catalog, orders or support (the first member is an owner)")
	}
	if sub == "disable" {
		enable = fs.Bool("enable", false, "enable the member again instead")
	}
	if err := parseFlags(fs, args[1:], getenv); err != nil {
		return err
	}
	if email != nil && strings.TrimSpace(*email) == "" {
		return fmt.Errorf("staff %s: --email is required", sub)
	}
	var pw string
	if sub == "add" || sub == "password" {
		line, err := bufio.NewReader(io.LimitReader(stdin, 4096)).ReadString('\n')
		if err != nil && err != io.EOF {
			return fmt.Errorf("staff %s: read the password from standard input: %w", sub, err)
		}
		pw = strings.TrimRight(line, "\r\n")
	}
	db, err := c.openDB(ctx, time.Now)
	if err != nil {
		return err
	}
	defer db.Close()
	svc := staff.NewService(sqldb.NewStaffStore(db), time.Now)
	ctx = audit.With(ctx, &audit.Scope{Actor: "cli", Role: string(staff.RoleOwner), Action: "staff." + sub})
	if sub == "list" {
		list, err := svc.List(ctx)
		if err != nil {
			return fmt.Errorf("staff list: %w", err)
		}
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "EMAIL\tROLE\tSTATUS\t2FA\tCREATED")
		for _, st := range list {
			status := "active"
			if st.Disabled {
				status = "disabled"
			} else if st.Invited {
				status = "invited"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%v\t%s\n", st.Email, st.Role, status, st.TOTP, st.CreatedAt.Format(time.RFC3339))
		}
		return tw.Flush()
	}
	if sub == "add" {
		st, err := svc.Add(ctx, *email, pw, *role)
		if err != nil {
			return fmt.Errorf("staff add: %w", err)
		}
		_, err = fmt.Fprintf(stdout, "staff %s added: %s (%s)\n", st.ID, st.Email, st.Role)
		return err
	}
	st, err := svc.ByEmail(ctx, *email)
	if err != nil {
		return fmt.Errorf("staff %s: %w", sub, err)
	}
	switch sub {
	case "remove":
		_, err = svc.Remove(ctx, st.ID)
	case "disable":
		_, err = svc.Disable(ctx, st.ID, !*enable)
	case "password":
		err = svc.SetPassword(ctx, st.ID, pw, "")
	}
	if err != nil {
		return fmt.Errorf("staff %s: %w", sub, err)
	}
	done := map[string]string{"remove": "removed (their sessions ended)", "disable": "disabled (their sessions ended)",
		"password": "has a new password (their sessions ended)"}[sub]
	if sub == "disable" && *enable {
		done = "enabled"
	}
	_, err = fmt.Fprintf(stdout, "staff %s %s\n", st.Email, done)
	return err
}
