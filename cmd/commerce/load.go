package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/auth"
	"github.com/commercekit/commerce/loader"
)

// load runs `commerce load DIR`: it loads a folder in the MicroBase sample
// format into a running service (see package loader), draws progress on
// stderr and prints the summary (loaded and rejected records per file, and
// those already there, which a second load skips) on stdout. It fails (non-zero exit) only for fatal problems: bad flags, DIR
// unreadable, the service unreachable, the token refused; rejected records
// are reported, not an error.
//
// The token is --token, else COMMERCE_TOKEN, else one minted here: an admin
// token (sub "loader", valid 24h) signed with the secret resolved as
// `commerce token` resolves it (--jwt-secret, COMMERCE_JWT_SECRET, then the
// file jwt-secret next to the SQLite database of --db / COMMERCE_DB, by
// default ./data/jwt-secret). That fallback serves the default setup, where
// `commerce serve` runs from the same directory; it never creates a secret.
func load(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	var c config
	fs := newFlagSet("load", stderr)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: commerce load [flags] DIR")
		fmt.Fprintln(fs.Output(), "Records the service already has are skipped (\"already there\"): loading a folder twice creates nothing the second time.")
		fs.PrintDefaults()
	}
	baseURL := fs.String("url", "http://localhost:8080", "service base URL (env COMMERCE_URL)")
	tok := fs.String("token", "", "admin access token (env COMMERCE_TOKEN; default: minted from the JWT secret, see --jwt-secret and --db)")
	stockStatus := fs.Int("stock-status", 0, "stockStatus for products that have none: 0 NORMAL, 1 UNLIMITED, 2 DISCONTINUED")
	fixSpelling := fs.Bool("fix-spelling", false, `send the promotion flag "isPercentaje" (as the sample spells it) as "isPercentage"`)
	workers := fs.Int("workers", loader.DefaultWorkers, "products created concurrently")
	c.storageFlags(fs)

	dirs, err := parseInterleaved(fs, args, getenv)
	if err != nil || dirs == nil {
		return err // nil for -h
	}
	if len(dirs) != 1 {
		fs.Usage()
		return fmt.Errorf("load: want one DIR, got %d", len(dirs))
	}
	if *stockStatus < 0 || *stockStatus > 2 {
		return fmt.Errorf("load: --stock-status %d: want 0, 1 or 2", *stockStatus)
	}
	if *workers < 1 {
		return fmt.Errorf("load: --workers must be at least 1")
	}
	if *tok == "" {
		if *tok, err = c.adminToken("load", "loader"); err != nil {
			return err
		}
	}

	rep, err := loader.Load(ctx, dirs[0], loader.Options{
		URL: *baseURL, Token: *tok, StockStatus: *stockStatus, FixSpelling: *fixSpelling,
		Workers: *workers, Progress: stderr,
	})
	if rep != nil {
		if werr := rep.WriteSummary(stdout); werr != nil && err == nil {
			err = werr
		}
	}
	if err != nil {
		return fmt.Errorf("load: %w", err)
	}
	return nil
}

// parseInterleaved parses fs from args, where flags may come before or
// after the positional arguments, then applies the environment; it
// returns the positional arguments ([]string{} when none), or nil and no
// error when -h asked for the usage.
func parseInterleaved(fs *flag.FlagSet, args []string, getenv func(string) string) ([]string, error) {
	pos := []string{}
	for rest := args; ; {
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, nil
			}
			return nil, err
		}
		if fs.NArg() == 0 {
			break
		}
		pos = append(pos, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	return pos, applyEnv(fs, getenv)
}

// adminToken mints the admin token (subject sub, valid 24h) that load and
// import use without --token, signed with the secret resolved as `commerce
// token` resolves it; it never creates a secret.
func (c *config) adminToken(cmd, sub string) (string, error) {
	secret, err := c.secret(false)
	if err != nil {
		return "", fmt.Errorf("%s: no token: set --token or COMMERCE_TOKEN (%w)", cmd, err)
	}
	keys, err := auth.New(secret)
	if err != nil {
		return "", fmt.Errorf("%s: %w", cmd, err)
	}
	tok, err := keys.Issue(commerce.Claims{Subject: sub, Scopes: []string{commerce.ScopeAdmin}}, time.Now(), 24*time.Hour)
	if err != nil {
		return "", fmt.Errorf("%s: sign a token: %w", cmd, err)
	}
	return tok, nil
}
