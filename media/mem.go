package media

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
)

// Memory is a media store in memory (media.Blobs): for tests, and for a
// service built without a store (app.Options.MediaBlobs nil).
type Memory struct {
	mu   sync.Mutex
	objs map[string][]byte
}

// NewMemory returns an empty store.
func NewMemory() *Memory { return &Memory{objs: map[string][]byte{}} }

// Put implements Blobs.
func (m *Memory) Put(_ context.Context, key string, data []byte, _ string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.objs[key] = bytes.Clone(data)
	return nil
}

// Open implements Blobs.
func (m *Memory) Open(_ context.Context, key string) (Object, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok := m.objs[key]
	if !ok {
		return nil, fmt.Errorf("open %s: %w", key, ErrNotExist)
	}
	return memObject{bytes.NewReader(b)}, nil
}

type memObject struct{ *bytes.Reader }

func (memObject) Close() error { return nil }

// Delete implements Blobs.
func (m *Memory) Delete(_ context.Context, prefix string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for k := range m.objs {
		if strings.HasPrefix(k, prefix) {
			delete(m.objs, k)
		}
	}
	return nil
}

// Keys returns how many objects the store holds.
func (m *Memory) Keys() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.objs)
}
