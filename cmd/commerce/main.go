// Command commerce is the commerce backend: `serve` runs the service,
// `token` mints an access token, `migrate` applies the schema migrations.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
)

// defaultMemoryLimit is the Go runtime's soft memory limit when GOMEMLIMIT
// is not set: the garbage collector works harder as the process nears it
// instead of letting the heap grow to twice what is live (under 20,000
// product reads a second that kept the process near 110 MB instead of 85).
// It is soft: a process that needs more gets it. GOMEMLIMIT (for example
// GOMEMLIMIT=512MiB, or off) replaces it.
const defaultMemoryLimit = 64 << 20

func main() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(defaultMemoryLimit)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "commerce:", err)
		os.Exit(1)
	}
}

const usage = `usage: commerce <command> [flags]

commands:
  serve     run the service (all areas)
  token     print a signed access token
  migrate   apply the schema migrations and exit
  load      load a folder of sample data (JSON Lines) into a running service
  import    import [--format shopify] FILE: create or update products from a file, in a running service
  staff     staff add|list|remove|disable|password: the admin app's staff accounts (passwords on stdin)
  search    search reindex: rebuild the product search index
  backup    backup --to FILE: a consistent copy of the SQLite database (serve may run)
  restore   restore --from FILE: check a backup and put it in place (serve stopped)
  gen       gen --products N: generate a large shop into an empty store, for benchmarks

Run "commerce <command> -h" for the flags of a command.
`

// run is the whole program, with its environment passed in so tests can
// drive it in-process.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return fmt.Errorf("no command given")
	}
	switch args[0] {
	case "serve":
		return serve(ctx, args[1:], getenv, stdout, stderr)
	case "token":
		return token(args[1:], getenv, stdout, stderr)
	case "migrate":
		return migrate(ctx, args[1:], getenv, stderr)
	case "load":
		return load(ctx, args[1:], getenv, stdout, stderr)
	case "import":
		return importCmd(ctx, args[1:], getenv, stdout, stderr)
	case "staff":
		return staffCmd(ctx, args[1:], getenv, stdout, stderr)
	case "search":
		return searchCmd(ctx, args[1:], getenv, stdout, stderr)
	case "backup":
		return backupCmd(ctx, args[1:], getenv, stderr)
	case "restore":
		return restoreCmd(ctx, args[1:], getenv, stderr)
	case "gen":
		return genCmd(ctx, args[1:], getenv, stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprint(stderr, usage)
	return fmt.Errorf("unknown command %q", args[0])
}
