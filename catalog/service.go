package catalog

import (
	"log/slog"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/event"
)

// Viewed receives VIEWED events, written in the background (event.Buffer).
type Viewed interface {
	Add(e event.Event)
}

// Service holds the catalog's use cases: categories in service_category.go,
// products in service_product.go (their checks in service_prepare.go).
type Service struct {
	store  *cachedStore
	viewed Viewed
	now    func() time.Time

	// MaxCategories is the most categories a product may belong to
	// (max_categories_per_product_reached, data: this number, above it).
	MaxCategories int
	// UpdateAttempts is how often product.update re-reads and re-merges a
	// product that changed under it before answering product_not_saved.
	UpdateAttempts int
	// Locales are the store's languages, the default first (--locales;
	// the zero value is en alone).
	Locales commerce.Locales
	// Logger receives what fails without failing the operation (a VIEWED
	// event that cannot be built); slog.Default() when nil.
	Logger *slog.Logger
	// PriceLists gives the active price lists' prices for PriceOf (the
	// price lists area); nil: none.
	PriceLists PriceLists
}

// NewService returns the catalog over store. viewed receives the VIEWED
// events of product.info (nil: none are written); now is the clock
// (time.Now when nil).
func NewService(store Store, viewed Viewed, now func() time.Time) *Service {
	if now == nil {
		now = time.Now
	}
	return &Service{store: newCachedStore(store), viewed: viewed, now: now, MaxCategories: DefaultMaxCategories, UpdateAttempts: 5}
}

func (s *Service) logger() *slog.Logger {
	if s.Logger != nil {
		return s.Logger
	}
	return slog.Default()
}

// emit builds an event of the catalog and queues it on tx.
func (s *Service) emit(tx Tx, channel, typ string, payload any) error {
	return event.Emit(tx, channel, typ, s.now(), payload)
}

// requireID is the validation_error of an operation called without an id
// (blank: the openapi tag of the id arguments, RemoveInput's).
func requireID(id string) error { return commerce.CheckArgs(RemoveInput{ID: id}) }

func dedupe(ids []string) []string {
	seen := make(map[string]bool, len(ids))
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}
