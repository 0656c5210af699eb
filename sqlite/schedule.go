package sqlite

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/sqldb"
)

// backupLeadKey is the lead (sqldb.DB.TryLead) of scheduled backups: of
// the processes sharing a database, one takes them.
const backupLeadKey = 7262029

// BackupPrefix starts the names of scheduled backups:
// commerce-<UTC time>.db, which sort by time.
const BackupPrefix = "commerce-"

// backupTime is the time in a scheduled backup's name.
const backupTime = "20060102T150405.000Z"

// Schedule takes backups of the database at Path into Dir every Every and
// keeps the newest Keep of them (serve --backup-every, --backup-dir,
// --backup-keep).
type Schedule struct {
	DB     *sqldb.DB
	Path   string
	Dir    string
	Every  time.Duration
	Keep   int
	Logger *slog.Logger
	// Now is the clock of the backups' names (time.Now when nil).
	Now func() time.Time
}

// Run takes the backups until ctx ends. Among the processes sharing the
// database the one that holds the lead takes them; the others try to take
// it over now and then. A backup is due Every after the newest one in Dir
// (so a restart does not take one at once when one is recent), at once
// when there is none.
func (s Schedule) Run(ctx context.Context) {
	if s.Now == nil {
		s.Now = time.Now
	}
	retry := min(s.Every, 30*time.Second)
	for ctx.Err() == nil {
		lead, ok, err := s.DB.TryLead(ctx, backupLeadKey)
		if err != nil {
			s.Logger.Warn("scheduled backups: lead", "err", err)
		}
		if !ok {
			commerce.Sleep(ctx, retry)
			continue
		}
		s.lead(ctx, lead)
		lead.Release()
	}
}

// lead takes the backups while the lead holds.
func (s Schedule) lead(ctx context.Context, lead *sqldb.Lead) {
	for ctx.Err() == nil {
		if err := lead.Check(ctx); err != nil {
			s.Logger.Warn("scheduled backups: lost the lead", "err", err)
			return
		}
		wait := time.Duration(0)
		if last, ok := s.newest(); ok {
			wait = last.Add(s.Every).Sub(s.Now())
		}
		if wait > 0 {
			commerce.Sleep(ctx, wait)
			continue
		}
		s.Once(ctx)
	}
}

// Once takes one backup now and prunes the old ones; a failure is logged
// (and tried again at the next one).
func (s Schedule) Once(ctx context.Context) {
	if s.Now == nil {
		s.Now = time.Now
	}
	start := time.Now()
	dst := filepath.Join(s.Dir, BackupPrefix+s.Now().UTC().Format(backupTime)+".db")
	if err := Backup(ctx, s.Path, dst); err != nil {
		if ctx.Err() == nil {
			s.Logger.Error("scheduled backup failed", "err", err)
			// Not due again at once: the next attempt is a period later.
			commerce.Sleep(ctx, min(s.Every, time.Minute))
		}
		return
	}
	size := int64(0)
	if fi, err := os.Stat(dst); err == nil {
		size = fi.Size()
	}
	s.Logger.Info("backup written", "file", dst, "bytes", size, "took", time.Since(start).Round(time.Millisecond))
	removed, err := Prune(s.Dir, BackupPrefix, s.Keep)
	if err != nil {
		s.Logger.Warn("old backups not removed", "err", err)
	}
	for _, r := range removed {
		s.Logger.Info("old backup removed", "file", filepath.Join(s.Dir, r))
	}
}

// newest returns the time of the newest scheduled backup in Dir.
func (s Schedule) newest() (time.Time, bool) {
	entries, err := os.ReadDir(s.Dir)
	if err != nil {
		return time.Time{}, false
	}
	var names []string
	for _, e := range entries {
		if n := e.Name(); strings.HasPrefix(n, BackupPrefix) && strings.HasSuffix(n, ".db") {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for i := len(names) - 1; i >= 0; i-- {
		t, err := time.Parse(backupTime, strings.TrimSuffix(strings.TrimPrefix(names[i], BackupPrefix), ".db"))
		if err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}
