package sqldb

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/commercekit/commerce/catalog"
	"github.com/commercekit/commerce/money"
)

// The stored form of a product (the products.doc column) is the store's
// own, not the interface's: the interface may change how a product looks
// without a data migration, and the store may change how it keeps one
// without the interface noticing. Each document says which form it is in
// (its "v"); reads decode every form this code knows, writes always write
// the latest.
//
//   - v absent: the form written before the store had its own, the
//     product's interface JSON as it was then (prices in major units).
//     Such documents are converted when read and rewritten in the latest
//     form by the product's next update. A read-time conversion rather
//     than a migration (0009): converting major units needs each
//     currency's ISO 4217 precision, which neither database knows, and a
//     migration rewriting every product would hold the table's lock for
//     the length of a large catalog on deploy; reading the old form costs
//     one branch.
//   - v 1: prices in minor units (integers) with their currency, dates
//     as RFC 3339 UTC times, classification values as JSON scalars.
//
// A form newer than this code knows (written by a newer release) is an
// error, not a guess.
const productDocVersion = 1

// productDoc is version 1 of the stored form. Lists are written as they
// are (null for nil), so that a product reads back as written, except
// variations and modifiers: empty ones are left out and read back nil, as
// the form before version 1 did (the service tells a Base or Variant by
// whether they are there, so an empty list must not start to count).
type productDoc struct {
	V               int                 `json:"v"`
	ID              string              `json:"id"`
	SKU             string              `json:"sku"`
	Status          string              `json:"status"`
	Title           string              `json:"title"`
	Description     string              `json:"description,omitempty"`
	Brand           string              `json:"brand,omitempty"`
	Categories      []string            `json:"categories"`
	Prices          []priceDoc          `json:"prices"`
	IsNetPrice      bool                `json:"isNetPrice,omitempty"`
	StockStatus     int                 `json:"stockStatus"`
	Medias          []mediaDoc          `json:"medias"`
	Classifications []classificationDoc `json:"classifications"`
	Base            string              `json:"base,omitempty"`
	Variations      []variationDoc      `json:"variations,omitempty"`
	Modifiers       []string            `json:"modifiers,omitempty"`
	TaxCode         string              `json:"taxCode"`
	// Translations are the product's text in other locales (docs/api.md
	// section 27); absent when none, as before they existed.
	Translations catalog.Translations `json:"translations,omitempty"`
}

// priceDoc is a stored price: Amount in minor units of Currency.
type priceDoc struct {
	ID           string     `json:"id"`
	Amount       int64      `json:"amount"`
	Currency     string     `json:"currency"`
	Country      string     `json:"country,omitempty"`
	CustomerType string     `json:"customerType,omitempty"`
	Channel      string     `json:"channel,omitempty"`
	ValidFrom    *time.Time `json:"validFrom,omitempty"`
	ValidUntil   *time.Time `json:"validUntil,omitempty"`
}

type mediaDoc struct {
	ID     string `json:"id"`
	URL    string `json:"url"`
	Alt    string `json:"alt,omitempty"`
	Width  int    `json:"width,omitempty"`
	Height int    `json:"height,omitempty"`
}

type variationDoc struct {
	ID    string `json:"id"`
	Value string `json:"value"`
}

// classificationDoc is a stored classification value: a JSON string,
// number or boolean (catalog.Literal reads and writes it as such).
type classificationDoc struct {
	ID    string          `json:"id"`
	Value catalog.Literal `json:"value"`
}

// productDocV0 is the form written before version 1: the interface's JSON
// of the time, which differs from version 1 in its prices (amounts in
// major units) and has no "v". Its fields shadow productDoc's.
type productDocV0 struct {
	productDoc
	Prices []priceDocV0 `json:"prices"`
}

// priceDocV0 is a price of the form before version 1: Amount in major
// units of Currency ("577.65").
type priceDocV0 struct {
	priceDoc
	Amount json.Number `json:"amount"`
}

// encodeProduct returns the stored form of p (Variants are computed on
// read, never stored).
func encodeProduct(p *catalog.Product) (string, error) {
	d := productDoc{V: productDocVersion, ID: p.ID, SKU: p.SKU, Status: p.Status, Title: p.Title,
		Description: p.Description, Brand: p.Brand, Categories: p.Categories, IsNetPrice: p.IsNetPrice,
		StockStatus: p.StockStatus, Base: p.Base, Modifiers: p.Modifiers, TaxCode: p.TaxCode, Translations: p.Translations}
	d.Prices = convert(p.Prices, func(pr catalog.Price) priceDoc {
		return priceDoc{ID: pr.ID, Amount: pr.Amount, Currency: pr.Currency, Country: pr.Country,
			CustomerType: pr.CustomerType, Channel: pr.Channel, ValidFrom: utc(pr.ValidFrom), ValidUntil: utc(pr.ValidUntil)}
	})
	d.Medias = convert(p.Medias, func(m catalog.Media) mediaDoc { return mediaDoc(m) })
	d.Variations = convert(p.Variations, func(v catalog.Variation) variationDoc { return variationDoc(v) })
	d.Classifications = convert(p.Classifications, func(c catalog.ClassificationValue) classificationDoc {
		return classificationDoc(c)
	})
	b, err := json.Marshal(d)
	if err != nil {
		return "", fmt.Errorf("product %s: stored form: %w", p.ID, err)
	}
	return string(b), nil
}

// decodeProduct reads a product from its stored form, whichever version.
func decodeProduct(doc string) (*catalog.Product, error) {
	var head struct {
		V  int    `json:"v"`
		ID string `json:"id"`
	}
	if err := json.Unmarshal([]byte(doc), &head); err != nil {
		return nil, fmt.Errorf("product: stored form: %w", err)
	}
	var d productDoc
	switch head.V {
	case productDocVersion:
		if err := json.Unmarshal([]byte(doc), &d); err != nil {
			return nil, fmt.Errorf("product %s: stored form v%d: %w", head.ID, head.V, err)
		}
	case 0:
		var old productDocV0
		if err := json.Unmarshal([]byte(doc), &old); err != nil {
			return nil, fmt.Errorf("product %s: stored form v0: %w", head.ID, err)
		}
		d = old.productDoc
		d.Prices = make([]priceDoc, len(old.Prices))
		for i, pr := range old.Prices {
			prec, err := money.Precision(pr.Currency)
			if err != nil {
				return nil, fmt.Errorf("product %s: stored form v0: price %s: %w", head.ID, pr.ID, err)
			}
			amount, err := money.ParseMajor(pr.Amount.String(), prec)
			if err != nil {
				return nil, fmt.Errorf("product %s: stored form v0: price %s: %w", head.ID, pr.ID, err)
			}
			d.Prices[i] = pr.priceDoc
			d.Prices[i].Amount = amount
		}
	default:
		return nil, fmt.Errorf("product %s: stored form v%d is not one this release reads (v0 to v%d)",
			head.ID, head.V, productDocVersion)
	}
	p := &catalog.Product{ID: d.ID, SKU: d.SKU, Status: d.Status, Title: d.Title, Description: d.Description,
		Brand: d.Brand, Categories: d.Categories, IsNetPrice: d.IsNetPrice, StockStatus: d.StockStatus,
		Base: d.Base, Modifiers: d.Modifiers, TaxCode: d.TaxCode, Translations: d.Translations}
	p.Prices = convert(d.Prices, func(pr priceDoc) catalog.Price {
		return catalog.Price{ID: pr.ID, Amount: pr.Amount, Currency: pr.Currency, Country: pr.Country,
			CustomerType: pr.CustomerType, Channel: pr.Channel, ValidFrom: utc(pr.ValidFrom), ValidUntil: utc(pr.ValidUntil)}
	})
	p.Medias = convert(d.Medias, func(m mediaDoc) catalog.Media { return catalog.Media(m) })
	p.Variations = convert(d.Variations, func(v variationDoc) catalog.Variation { return catalog.Variation(v) })
	p.Classifications = convert(d.Classifications, func(c classificationDoc) catalog.ClassificationValue {
		return catalog.ClassificationValue(c)
	})
	return p, nil
}

// convert maps a list, keeping nil as nil (and empty as empty).
func convert[A, B any](in []A, f func(A) B) []B {
	if in == nil {
		return nil
	}
	out := make([]B, len(in))
	for i, v := range in {
		out[i] = f(v)
	}
	return out
}

// utc returns a copy of t in UTC (nil for nil).
func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}
