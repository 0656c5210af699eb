package transfer

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/catalog"
)

// DefaultBatch is how many rows one transaction writes.
const DefaultBatch = 1000

// MaxFileBytes is the largest file product.import takes (413 above).
const MaxFileBytes = 1 << 30

// Service runs imports and exports.
type Service struct {
	store   Store
	catalog *catalog.Service
	now     func() time.Time

	// Batch is how many rows one transaction writes (DefaultBatch).
	Batch int
	// Dir is where uploaded files wait for their job (os.TempDir() when
	// empty); each is removed when its job ends.
	Dir string
	// Logger receives the failures of jobs; slog.Default() when nil.
	Logger *slog.Logger

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	mu     sync.Mutex
	// running are the jobs this process runs, by id.
	running map[string]*jobRun
}

// NewService returns the import and export service; cat checks and
// caches the products it writes.
func NewService(store Store, cat *catalog.Service, now func() time.Time) *Service {
	if now == nil {
		now = time.Now
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Service{store: store, catalog: cat, now: now, Batch: DefaultBatch, ctx: ctx, cancel: cancel, running: map[string]*jobRun{}}
}

// locales are the store's languages (the catalog's, --locales).
func (s *Service) locales() commerce.Locales {
	if s.catalog == nil {
		return nil
	}
	return s.catalog.Locales
}

func (s *Service) logger() *slog.Logger {
	if s.Logger != nil {
		return s.Logger
	}
	return slog.Default()
}

// Run ends the jobs other processes left RUNNING when they stopped (at
// once, then every StaleAfter: service_stale.go) until ctx's end, then
// stops the running jobs (each is FAILED) and waits for them.
func (s *Service) Run(ctx context.Context) {
	s.sweep(ctx)
	t := time.NewTicker(StaleAfter)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			s.cancel()
			s.wg.Wait()
			return
		case <-t.C:
			s.sweep(ctx)
		}
	}
}

// Job is job.info: a job left RUNNING by a process that stopped is
// answered (and recorded) FAILED, interrupted. Errors: validation_error,
// job_not_found.
func (s *Service) Job(ctx context.Context, id string) (*Job, error) {
	if id == "" {
		return nil, commerce.Invalid("id: required")
	}
	j, err := s.store.Job(ctx, id)
	if err != nil {
		return nil, err
	}
	return s.endIfStale(ctx, j)
}

// Upload is a file received for an import, kept until its job ends.
type Upload struct{ path string }

// Discard removes the file (an upload no job was started for).
func (u *Upload) Discard() { os.Remove(u.path) }

// Receive keeps the file of product.import as it streams in. Errors:
// validation_error (it cannot be read), request_too_large (over
// MaxFileBytes).
func (s *Service) Receive(file io.Reader) (*Upload, error) {
	f, err := os.CreateTemp(s.Dir, "commerce-import-*")
	if err != nil {
		return nil, commerce.Errorf(commerce.EInternal, "import: keep the file: %w", err)
	}
	up := &Upload{path: f.Name()}
	n, err := io.Copy(f, io.LimitReader(file, MaxFileBytes+1))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		up.Discard()
		e := commerce.Invalid("file: could not be read")
		e.Err = err
		return nil, e
	}
	if n > MaxFileBytes {
		up.Discard()
		return nil, commerce.NewError(commerce.ERequestTooLarge, nil)
	}
	return up, nil
}

// Start is product.import: it checks that the file is a file of the
// format (its header, for a CSV), records the job and runs it in the
// background; the job owns the upload from then on (on error the caller
// still does). Errors: validation_error (format, currency, a file that is
// not CSV or JSON Lines, a bad header: nothing is written).
func (s *Service) Start(ctx context.Context, in ImportInput, up *Upload) (*Job, error) {
	if err := in.check(); err != nil {
		return nil, err
	}
	if err := sniff(up.path); err != nil {
		return nil, err
	}
	// The header, before the job exists: a file refused as a whole
	// answers at once.
	_, closer, err := s.open(up.path, in)
	if err != nil {
		return nil, err
	}
	closer.Close()

	j := &Job{ID: commerce.NewID(), Status: JobRunning, Format: in.format(), DryRun: in.DryRun, Errors: []RowError{}, StartedAt: s.now().UTC()}
	j.Beat = j.StartedAt
	if err := s.store.CreateJob(ctx, j); err != nil {
		return nil, err
	}
	out := *j
	path := up.path
	jr := s.own(j.ID)
	s.wg.Add(2)
	go func() {
		defer s.wg.Done()
		defer os.Remove(path)
		defer s.disown(j.ID)
		defer jr.cancel()
		s.run(jr.ctx, j, path, in)
	}()
	go func() {
		defer s.wg.Done()
		s.beat(jr)
	}()
	return &out, nil
}

// Import runs an import to its end in the caller's goroutine (tests,
// tools): Start and wait.
func (s *Service) Import(ctx context.Context, in ImportInput, file io.Reader) (*Job, error) {
	up, err := s.Receive(file)
	if err != nil {
		return nil, err
	}
	j, err := s.Start(ctx, in, up)
	if err != nil {
		up.Discard()
		return nil, err
	}
	for {
		got, err := s.store.Job(ctx, j.ID)
		if err != nil {
			return nil, err
		}
		if got.Status != JobRunning {
			return got, nil
		}
		if err := commerce.Sleep(ctx, 20*time.Millisecond); err != nil {
			return nil, err
		}
	}
}

// sniff refuses a file that is not text: NUL bytes or invalid UTF-8 in
// its first 64 KiB.
func sniff(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return commerce.Errorf(commerce.EInternal, "import: %w", err)
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	n, _ := io.ReadFull(f, buf)
	b := buf[:n]
	if len(bytes.TrimSpace(bytes.TrimPrefix(b, []byte("\uFEFF")))) == 0 {
		return commerce.Invalid("file: empty")
	}
	if n == len(buf) {
		// A rune cut by the end of the sample is not an error.
		for i := 0; i < utf8.UTFMax && len(b) > 0 && !utf8.Valid(b); i++ {
			b = b[:len(b)-1]
		}
	}
	if bytes.IndexByte(b, 0) >= 0 || !utf8.Valid(b) {
		return commerce.Invalid("file: not a CSV or JSON Lines file in UTF-8 (it holds binary data)")
	}
	return nil
}

// open opens the kept file and returns its reader (the header read).
func (s *Service) open(path string, in ImportInput) (Reader, io.Closer, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, commerce.Errorf(commerce.EInternal, "import: %w", err)
	}
	br := bufio.NewReaderSize(f, 256<<10)
	var rd Reader
	switch {
	case in.format() == FormatShopify:
		rd, err = NewShopify(br, in.currency())
	case firstByte(br) == '{':
		rd = NewJSONLines(br)
	default:
		rd, err = NewCommerceCSV(br, s.locales())
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return rd, f, nil
}

// firstByte returns the first byte that is not white space or a BOM.
func firstByte(br *bufio.Reader) byte {
	b, _ := br.Peek(4096)
	b = bytes.TrimLeft(bytes.TrimPrefix(b, []byte("\uFEFF")), " \t\r\n")
	if len(b) == 0 {
		return 0
	}
	return b[0]
}

// run is a job: a first pass reads the whole file (nothing is written
// when it is refused as a whole) and finds the skus given twice, a second
// writes its rows, a batch a transaction.
func (s *Service) run(ctx context.Context, j *Job, path string, in ImportInput) {
	err := s.runJob(ctx, j, path, in)
	if errors.Is(err, ErrJobEnded) {
		s.logger().Warn("import job stopped: another process ended it", "job", j.ID)
		return
	}
	now := s.now().UTC()
	j.FinishedAt = &now
	j.Status = JobDone
	if err != nil {
		j.Status = JobFailed
		var fe *FileError
		if errors.As(err, &fe) {
			j.Errors = append([]RowError{rowError(fe.Line, "", fe.Err)}, j.Errors...)
		} else {
			s.logger().Error("import job failed", "job", j.ID, "err", err)
			code := commerce.ErrorCode(err)
			if ctx.Err() != nil {
				code = commerce.EUnavailable
			}
			j.Errors = append(j.Errors, RowError{Error: code, Data: "the job stopped: rows after those processed were not imported"})
		}
		if len(j.Errors) > MaxErrors {
			j.Errors = j.Errors[:MaxErrors]
		}
	}
	if s.lost(j.ID) {
		return // another process ended it (service_stale.go)
	}
	j.Beat = now
	// Saved even when ctx has ended: the job's end must be recorded.
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := s.store.SaveJob(sctx, j); err != nil {
		s.logger().Error("import job: save", "job", j.ID, "err", err)
	}
}

func (s *Service) runJob(ctx context.Context, j *Job, path string, in ImportInput) error {
	// First pass: the file's syntax, the number of rows, repeated skus.
	rd, c, err := s.open(path, in)
	if err != nil {
		return &FileError{Err: err}
	}
	first := map[string]int{}
	dups := map[int]int{}
	rows := 0
	for {
		r, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			c.Close()
			return err
		}
		rows++
		if r.SKU != "" {
			if line, seen := first[r.SKU]; seen {
				dups[r.Line] = line
			} else {
				first[r.SKU] = r.Line
			}
		}
	}
	c.Close()
	first = nil
	j.Rows = rows
	j.Beat = s.now().UTC()
	if err := s.store.SaveJob(ctx, j); err != nil {
		return err
	}

	cats, err := s.store.Categories(ctx)
	if err != nil {
		return err
	}
	idx := newCategoryIndex(cats)
	rd, c, err = s.open(path, in)
	if err != nil {
		return &FileError{Err: err}
	}
	defer c.Close()
	size := max(1, s.Batch)
	buf := make([]*Row, 0, size)
	for {
		r, err := rd.Next()
		if err != nil && err != io.EOF {
			return err
		}
		if r != nil {
			buf = append(buf, r)
		}
		if len(buf) == size || (err == io.EOF && len(buf) > 0) {
			if err := s.write(ctx, j, batch{rows: buf, dups: dups, dryRun: in.DryRun}, idx); err != nil {
				return err
			}
			buf = buf[:0]
		}
		if err == io.EOF {
			return nil
		}
	}
}

// write writes a batch and records its outcomes on the job. A batch whose
// transaction fails is written again a row a transaction, so that only
// the row at fault is refused.
func (s *Service) write(ctx context.Context, j *Job, b batch, idx *categoryIndex) error {
	b.job = j
	outs, err := s.applyBatch(ctx, b, idx)
	saved := err == nil && !b.dryRun
	if err != nil {
		if ctx.Err() != nil || commerce.ErrorCode(err) == commerce.EUnavailable || errors.Is(err, ErrJobEnded) {
			return err
		}
		if len(b.rows) == 1 {
			outs = []outcome{{outRejected, rowError(b.rows[0].Line, b.rows[0].SKU, err)}}
		} else {
			outs = nil
			for _, r := range b.rows {
				one := b
				one.rows, one.job = []*Row{r}, nil
				o, err := s.applyBatch(ctx, one, idx)
				if err != nil {
					if ctx.Err() != nil || commerce.ErrorCode(err) == commerce.EUnavailable {
						return err
					}
					o = []outcome{{outRejected, rowError(r.Line, r.SKU, err)}}
				}
				outs = append(outs, o...)
			}
		}
	}
	record(j, outs)
	if saved {
		s.beaten(j.ID) // the batch's transaction recorded the beat
		return nil
	}
	j.Beat = s.now().UTC()
	if err := s.store.SaveJob(ctx, j); err != nil {
		return err
	}
	s.beaten(j.ID)
	return nil
}

// record counts the outcomes of a batch on the job.
func record(j *Job, outs []outcome) {
	for _, o := range outs {
		j.Processed++
		switch o.kind {
		case outCreated:
			j.Created++
		case outUpdated:
			j.Updated++
		case outUnchanged:
			j.Unchanged++
		default:
			j.Rejected++
			if len(j.Errors) < MaxErrors {
				j.Errors = append(j.Errors, o.err)
			}
		}
	}
}
