package loader

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// barWidth is the number of cells of the progress bar.
const barWidth = 30

// progress draws `\r[=====>    ] 512/983 products` on w, at most every
// interval (and always for the last record), and ends the line on finish.
// It always draws, terminal or not: each redraw starts with \r, so a log
// file gets a few long lines rather than a dependency on terminal detection.
type progress struct {
	w        io.Writer
	label    string
	total    int
	interval time.Duration

	mu    sync.Mutex
	done  int
	last  time.Time
	drawn int // done as last drawn; -1 before the first draw
}

func newProgress(w io.Writer, label string, total int) *progress {
	return &progress{w: w, label: label, total: total, interval: 100 * time.Millisecond, drawn: -1}
}

// add counts n more records done and redraws when it is time.
func (p *progress) add(n int) {
	if p == nil || p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done += n
	if now := time.Now(); p.done >= p.total || now.Sub(p.last) >= p.interval {
		p.last = now
		p.draw()
	}
}

// finish draws the final state, unless already drawn, and ends the line.
func (p *progress) finish() {
	if p == nil || p.w == nil || p.total == 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn != p.done {
		p.draw()
	}
	fmt.Fprintln(p.w)
}

func (p *progress) draw() {
	p.drawn = p.done
	fmt.Fprintf(p.w, "\r%s %d/%d %s", bar(p.done, p.total), p.done, p.total, p.label)
}

// bar renders done out of total as [=====>    ], full as [======].
func bar(done, total int) string {
	if total <= 0 {
		return "[" + strings.Repeat(" ", barWidth) + "]"
	}
	done = min(max(done, 0), total)
	filled := done * barWidth / total
	if done == total {
		return "[" + strings.Repeat("=", barWidth) + "]"
	}
	return "[" + strings.Repeat("=", filled) + ">" + strings.Repeat(" ", barWidth-filled-1) + "]"
}
