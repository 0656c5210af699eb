package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/auth"
	"github.com/commercekit/commerce/staff"
)

// token prints a signed access token, and nothing else, on stdout.
func token(args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	var c config
	fs := newFlagSet("token", stderr)
	c.storageFlags(fs)
	scope := fs.String("scope", "", "admin or api (required)")
	sub := fs.String("sub", "", "subject (sub claim); default: the scope")
	customerID := fs.String("customer-id", "", "customerId claim")
	customerType := fs.String("customer-type", "", "customerType claim (VIP, B2B, B2C, ...)")
	country := fs.String("country", "", "country claim (ISO 3166-1 alpha-2)")
	var groups []string
	fs.Func("group", "groups claim: a customer group code (repeatable)", func(v string) error {
		if v = strings.TrimSpace(v); v == "" {
			return fmt.Errorf("an empty group code")
		}
		groups = append(groups, v)
		return nil
	})
	ttl := fs.Duration("ttl", 24*time.Hour, "validity")
	role := fs.String("role", "", "role claim of an admin token: owner, admin, catalog, orders or support (default admin)")
	if err := parseFlags(fs, args, getenv); err != nil {
		return err
	}
	if *scope != commerce.ScopeAdmin && *scope != commerce.ScopeAPI {
		return fmt.Errorf("--scope must be admin or api")
	}
	if _, ok := staff.ParseRole(*role); !ok || (*role != "" && *scope != commerce.ScopeAdmin) {
		return fmt.Errorf("--role must be owner, admin, catalog, orders or support, with --scope admin")
	}
	if *ttl <= 0 {
		return fmt.Errorf("--ttl must be positive")
	}
	if *sub == "" {
		*sub = *scope
	}
	secret, err := c.secret(false) // never a new one: the server would not know it
	if err != nil {
		return err
	}
	keys, err := auth.New(secret)
	if err != nil {
		return fmt.Errorf("token: %w", err)
	}
	tok, err := keys.Issue(commerce.Claims{Subject: *sub, Scopes: []string{*scope}, CustomerID: *customerID,
		CustomerType: *customerType, Country: *country, Groups: groups, Role: *role}, time.Now(), *ttl)
	if err != nil {
		return fmt.Errorf("sign the token: %w", err)
	}
	if _, err := fmt.Fprintln(stdout, tok); err != nil {
		return fmt.Errorf("write the token: %w", err)
	}
	return nil
}
