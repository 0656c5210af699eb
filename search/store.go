package search

import "context"

// Store finds products. The database's store (sqldb.SearchStore) keeps its
// index in the database, changed by the product's own transaction, so that
// a product is found (or no longer found) as soon as its change commits.
//
// It is also the seam for an external engine. When one database no longer
// serves the catalog (millions of products, typo tolerance, synonyms), an
// OpenSearch or Meilisearch adapter implements Store over its own index
// and the API does not change: Search translates the Query (Text, analysed
// as its index analyses the products, as a match of every word on title,
// brand, sku and description with the last word a prefix, the products
// matching every word in the title first — the way PostgreSQL folds Text
// itself rather than using Words, which are SQLite's folding;
// Categories against each product's category ids and ancestors; Brands,
// the price range and Sort as filters and sorts on indexed fields; the
// facets as terms and range aggregations over PriceBounds) and returns the
// page's IDs (Result.Products nil: the service reads the products from the
// catalog); the index is fed from the PRODUCTS events of the outbox
// (CREATE, UPDATE, REMOVE, relayed after commit, so such an index trails
// the database by the relay's delay), and Reindex rebuilds it by reading
// every product. No such adapter exists yet.
type Store interface {
	// Search returns the products matching q: only ONLINE ones; the page
	// in q's sort order; the facets q asks for, over the whole match. q is
	// valid (SearchInput.Query).
	Search(ctx context.Context, q Query) (*Result, error)
	// Reindex rebuilds the whole index from the products and returns how
	// many products it holds (for `commerce search reindex`; the index
	// needs no rebuild in normal operation).
	Reindex(ctx context.Context) (int, error)
}
